// Numbers with a suffix.
#include "app/amounts.hpp"

#include <fmt/format.h>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>

#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "common/whole_number.hpp"

namespace csx::app {
namespace {

// A positive number followed by one of `units` (its multiplier), finite once multiplied.
struct Scaled {
  std::optional<double> value;
  bool too_large = false;  // a number beyond the largest double, as read or once multiplied
};

Scaled scaled(const std::string& text, const std::map<std::string, double>& units) {
  const char* end = text.data() + text.size();
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  // Out of range is an overflow (1e400) or an underflow (1e-400, refused as not positive).
  const bool overflow = ec == std::errc::result_out_of_range && ptr != text.data() &&
                        std::strtod(text.c_str(), nullptr) == HUGE_VAL;
  if ((ec != std::errc() && !overflow) || ptr == text.data() || (!overflow && !(v > 0))) return {};
  const auto unit = units.find(std::string(ptr, end));
  if (unit == units.end()) return {};
  if (overflow || !std::isfinite(v * unit->second)) return {std::nullopt, true};
  return {v * unit->second};
}

// The refusal of a number too large to hold.
InputError too_large(const std::string& flag, const std::string& text) {
  return InputError(fmt::format("{} {}: too large (beyond {:.3g}, the largest number csxsim holds)",
                                flag, text, std::numeric_limits<double>::max()));
}

}  // namespace

double parse_amount(const std::string& text, const std::string& flag) {
  static const std::map<std::string, double> scale = [] {
    std::map<std::string, double> m{{"", 1}};
    for (char c = 'A'; c <= 'z'; ++c)
      if (amount_suffix(c) > 0) m[std::string(1, c)] = amount_suffix(c);
    return m;
  }();
  const auto v = scaled(text, scale);
  if (v.value) return *v.value;
  if (v.too_large) throw too_large(flag, text);
  throw InputError(fmt::format(
      "{} {}: expected a positive number, optionally with K, M, B or T (e.g. 1e12, 300B)", flag,
      text));
}

double parse_duration_s(const std::string& text, const std::string& flag) {
  static const std::map<std::string, double> unit{{"s", 1},    {"m", 60},    {"min", 60},
                                                  {"h", 3600}, {"d", 86400}, {"w", 604800}};
  const auto v = scaled(text, unit);
  if (v.value) return *v.value;
  if (v.too_large) throw too_large(flag, text);
  // 7D: the unit in lower case is one.
  const std::string lower = lowercase(text);
  const std::string hint = lower != text && scaled(lower, unit).value
                               ? fmt::format(" (units are lower case: {})", lower)
                               : "";
  throw InputError(fmt::format(
      "{} {}: expected a positive duration with a unit s, m or min, h, d or w (e.g. 7d, 36h){}",
      flag, text, hint));
}

namespace {

// The unit human_duration shows `s` seconds in, and how many digits.
struct DurationUnit {
  double seconds;
  const char* name;
  bool general;  // "{:.3g}" (beyond a million days), else fixed decimals
  int decimals;
};

DurationUnit duration_unit(double s) {
  if (s < 60) return {1, "s", false, 1};
  if (s < 3600) return {60, "min", false, 1};
  if (s > 1e6 * 86400) return {86400, "days", true, 3};
  if (s < 2 * 86400) return {3600, "h", false, 2};
  return {86400, "days", false, 2};
}

std::string in_unit(double s, const DurationUnit& u) {
  return u.general ? fmt::format("{:.3g}", s / u.seconds)
                   : fmt::format("{:.{}f}", s / u.seconds, u.decimals);
}

}  // namespace

std::string human_duration(double s) {
  const auto u = duration_unit(s);
  return fmt::format("{} {}", in_unit(s, u), u.name);
}

std::pair<std::string, std::string> human_durations_apart(double a_s, double b_s) {
  auto u = duration_unit(a_s);
  const auto text = [&](double s) { return fmt::format("{} {}", in_unit(s, u), u.name); };
  for (int extra = 0; extra < 4 && a_s != b_s && in_unit(a_s, u) == in_unit(b_s, u); ++extra)
    ++u.decimals;
  return {text(a_s), text(b_s)};
}

std::string human_duration_range(double low_s, double high_s, double like_s) {
  const auto u = duration_unit(like_s);
  return fmt::format("{}-{} {}", in_unit(low_s, u), in_unit(high_s, u), u.name);
}

}  // namespace csx::app
