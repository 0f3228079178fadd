// FNV-1a, 64 bits, folded to 32 (see the header for the source).
#include "common/short_hash.hpp"

#include <fmt/format.h>
#include <cstdint>

namespace csx {

std::string short_hash(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return fmt::format("{:08x}", static_cast<std::uint32_t>((h >> 32) ^ (h & 0xffffffffULL)));
}

}  // namespace csx
