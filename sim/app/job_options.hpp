// The options that override a scenario (run, sweep, plan), read from their text into
// Overrides, for the CLI and the Python module alike (docs/python.md#python).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/job.hpp"
#include "app/option_table.hpp"

namespace csx::app {

// The largest --jobs of run and sweep (processes at once).
inline constexpr std::int64_t kMaxJobs = 1024;

// The job options given (--num-csx, --batch-size, --micro-batch-size, --platform, --mode,
// --steps, --tokens, --sim-steps, --max-explore, --compile-only, --platform-override). Throws
// InputError for malformed values, naming the flag, and for --steps with --tokens. With `grid`,
// --num-csx and --batch-size are lists read by sweep and plan, not single values.
[[nodiscard]] Overrides read_overrides(const GivenOptions& given, bool grid = false);

// Whether override keys `a` and `b` ([P:]KEY) set one key on some platform: the same KEY, and
// the same P or one of them without any (it applies to every platform).
[[nodiscard]] bool same_setting(const std::string& a, const std::string& b);

// --platform-override's [P:]KEY=VALUE texts as (key, value) pairs, in order. Throws InputError
// for a text without '=' and for a key given twice, also as KEY and P:KEY (as --variant refuses
// it).
[[nodiscard]] std::vector<std::pair<std::string, std::string>> read_platform_overrides(
    const std::vector<std::string>& texts);

// A positive whole number given as text for `flag` (--seq-len, --jobs ...); empty: not given.
[[nodiscard]] std::optional<std::int64_t> optional_count(const std::optional<std::string>& text,
                                                         const std::string& flag);
// --jobs of `text`: 1 to kMaxJobs `what` at once; empty: not given.
[[nodiscard]] std::optional<std::int64_t> read_jobs(const std::optional<std::string>& text,
                                                    const char* what);

}  // namespace csx::app
