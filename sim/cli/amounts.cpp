// Numbers with a suffix.
#include "cli/amounts.hpp"

#include <fmt/format.h>
#include <charconv>
#include <cmath>
#include <map>

#include "common/errors.hpp"

namespace csx::cli {
namespace {

// Splits "2.5d" into 2.5 and "d"; nullopt when the text does not start with a number.
bool split_number(const std::string& text, double& value, std::string& suffix) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr == text.data()) return false;
  suffix.assign(ptr, end);
  return std::isfinite(value);
}

}  // namespace

double parse_amount(const std::string& text, const std::string& flag) {
  static const std::map<std::string, double> scale{{"", 1},     {"K", 1e3},  {"k", 1e3},
                                                   {"M", 1e6},  {"B", 1e9},  {"G", 1e9},
                                                   {"T", 1e12}};
  double v = 0;
  std::string suffix;
  if (!split_number(text, v, suffix) || !scale.count(suffix) || v <= 0 ||
      !std::isfinite(v * scale.at(suffix)))
    throw InputError(fmt::format(
        "{} {}: expected a positive number, optionally with K, M, B or T (e.g. 1e12, 300B)", flag,
        text));
  return v * scale.at(suffix);
}

double parse_duration_s(const std::string& text, const std::string& flag) {
  static const std::map<std::string, double> unit{{"s", 1},       {"m", 60},   {"min", 60},
                                                  {"h", 3600},    {"d", 86400}, {"w", 604800}};
  double v = 0;
  std::string suffix;
  if (!split_number(text, v, suffix) || !unit.count(suffix) || v <= 0 ||
      !std::isfinite(v * unit.at(suffix)))
    throw InputError(fmt::format(
        "{} {}: expected a positive duration with a unit s, min, h, d or w (e.g. 7d, 36h)", flag,
        text));
  return v * unit.at(suffix);
}

std::string human_duration(double s) {
  if (s < 3600) return fmt::format("{:.1f} min", s / 60);
  if (s < 2 * 86400) return fmt::format("{:.2f} h", s / 3600);
  return fmt::format("{:.2f} days", s / 86400);
}

}  // namespace csx::cli
