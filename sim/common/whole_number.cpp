// Whole numbers from text.
#include "common/whole_number.hpp"

#include <fmt/format.h>
#include <charconv>
#include <cmath>

#include "common/errors.hpp"

namespace csx {
namespace {

// For 2K or +1.5M: "; write 2000 (K, M, B (or G) and T are read by --tokens ...)", else "".
std::string suffix_hint(const std::string& text) {
  if (text.size() < 2) return {};
  const double scale = amount_suffix(text.back());
  const char* first = text.data() + (text.front() == '+' ? 1 : 0);
  const char* last = text.data() + text.size() - 1;
  double d = 0;
  const auto [p, ec] = std::from_chars(first, last, d);
  if (scale == 0 || ec != std::errc{} || p != last || !(d > 0)) return {};
  const double v = d * scale;
  if (v != std::floor(v) || v >= 9.0e15) return {};
  return fmt::format(
      "; write {:.0f} (K, M, B (or G) and T are read by --tokens and --input-rate only)", v);
}

}  // namespace

double amount_suffix(char unit) {
  switch (unit) {
    case 'K':
    case 'k':
      return 1e3;
    case 'M':
    case 'm':
      return 1e6;
    case 'B':
    case 'b':
    case 'G':
    case 'g':
      return 1e9;
    case 'T':
    case 't':
      return 1e12;
    default:
      return 0;
  }
}

std::int64_t parse_whole(const std::string& text, const std::string& where, std::int64_t min,
                         std::int64_t max) {
  std::int64_t v = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  if (first != last && *first == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec == std::errc::result_out_of_range)
    throw InputError(
        fmt::format("{} = {}: too large, it does not fit a 64-bit integer", where, text));
  if (text.empty() || ec != std::errc{} || ptr != last) {
    // 2048.0 or 1e3 are whole numbers written as floats: accept them when exact.
    double d = 0;
    const auto [p2, ec2] = std::from_chars(first, last, d);
    const bool whole = ec2 == std::errc{} && p2 == last && std::isfinite(d) && d == std::floor(d);
    if (whole && std::fabs(d) < 9.0e15)
      v = static_cast<std::int64_t>(d);
    else if (whole)  // 1e30: whole, but beyond what a double holds exactly (2^53)
      throw InputError(fmt::format(
          "{} = {}: too large, at most 9e15 when written as a float (2^53: exact in a double)",
          where, text));
    else
      throw InputError(
          fmt::format("{} = '{}': expected a whole number{}", where, text, suffix_hint(text)));
  }
  if (v < min) throw InputError(fmt::format("{} = {}: must be at least {}", where, v, min));
  if (v > max) throw InputError(fmt::format("{} = {}: must be at most {}", where, v, max));
  return v;
}

}  // namespace csx
