// The one parser of whole numbers in text (flags, YAML scalars, CSV fields, lists).
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace csx {

// A whole number in [min, max]: an optional sign and digits, or a float written exactly (2048.0,
// 1e3). Throws InputError naming `where`, the text and the rule: not a whole number, too large
// for 64 bits, below min, above max. A number with a K, M, B or T suffix (2K) is refused with
// the number to write (2000).
// The multiplier of an amount's suffix (--tokens 300B, --input-rate 2K), in either case: K 1e3,
// M 1e6, B and G 1e9, T 1e12; 0 for any other character.
[[nodiscard]] double amount_suffix(char unit);

[[nodiscard]] std::int64_t parse_whole(const std::string& text, const std::string& where,
                                       std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                                       std::int64_t max = std::numeric_limits<std::int64_t>::max());

}  // namespace csx
