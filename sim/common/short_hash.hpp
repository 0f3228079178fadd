// A short, stable fingerprint of a text (the `grid` column of a sweep).
#pragma once

#include <string>
#include <string_view>

namespace csx {

// The 64-bit FNV-1a hash of `text` (Fowler, Noll and Vo; IETF draft-eastlake-fnv, "The FNV
// Non-Cryptographic Hash Algorithm": offset basis 0xcbf29ce484222325, prime 0x100000001b3),
// folded to 32 bits (high xor low) and written as 8 lowercase hex digits. The same text gives
// the same digits on every machine. Not cryptographic: it tells apart texts that differ by
// accident, not by design.
[[nodiscard]] std::string short_hash(std::string_view text);

}  // namespace csx
