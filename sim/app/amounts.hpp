// Token budgets and deadlines as users write them on the command line.
#pragma once

#include <string>
#include <utility>

namespace csx::app {

// A positive amount: a number (1e12, 2.5e11) or one with a suffix K, M, B (or G), T (1e3, 1e6,
// 1e9, 1e12): "300B", "1T". Throws InputError naming `flag`.
[[nodiscard]] double parse_amount(const std::string& text, const std::string& flag);

// A duration in seconds: a number with a unit s, m (or min), h, d or w: "7d", "36h", "90min",
// "2.5d". Throws InputError naming `flag` (no unit, unknown unit, not positive).
[[nodiscard]] double parse_duration_s(const std::string& text, const std::string& flag);

// Seconds as a person reads them: "12.5 s", "42.0 min", "5.31 h", "6.42 days", "3.2e+08 days".
[[nodiscard]] std::string human_duration(double seconds);
// A range low-high in the unit human_duration picks for `like_s`: "24.99-38.55 h".
[[nodiscard]] std::string human_duration_range(double low_s, double high_s, double like_s);
// Two durations compared in one sentence, in the unit human_duration picks for `a_s`, with up
// to four more decimals until two that differ read differently: "30.186 days", "30.187 days".
[[nodiscard]] std::pair<std::string, std::string> human_durations_apart(double a_s, double b_s);

}  // namespace csx::app
