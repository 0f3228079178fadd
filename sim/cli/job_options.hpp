// The options that override a scenario (run, sweep, plan), read from their text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/job.hpp"
#include "app/option_table.hpp"

namespace csx::cli {

// The largest --jobs of run and sweep (processes at once).
inline constexpr std::int64_t kMaxJobs = 1024;

// The job options' values as given, as text: from the command line or from the Python
// module's keyword arguments (docs/python.md#python). Empty: not given.
struct JobOptionTexts {
  std::optional<std::string> num_csx, batch_size, micro_batch_size, platform, mode, steps, tokens,
      sim_steps, max_explore;
  bool compile_only = false;
  std::vector<std::string> platform_overrides;  // KEY=VALUE, in order
};
[[nodiscard]] JobOptionTexts job_option_texts(const app::GivenOptions& given);

// Throws InputError for malformed values, naming the flag. With `grid`, --num-csx and
// --batch-size are lists read by the sweep, not single values.
[[nodiscard]] app::Overrides read_overrides(const JobOptionTexts& t, bool grid = false);

// --platform-override's [P:]KEY=VALUE texts as (key, value) pairs, in order. Throws InputError
// for a text without '=' and for a key given twice (as --variant refuses it).
[[nodiscard]] std::vector<std::pair<std::string, std::string>> read_platform_overrides(
    const std::vector<std::string>& texts);

// A positive whole number given as text for `flag` (--seq-len, --jobs ...); empty: not given.
[[nodiscard]] std::optional<std::int64_t> optional_count(const std::optional<std::string>& text,
                                                         const std::string& flag);
// --jobs of `text`: 1 to kMaxJobs `what` at once; empty: not given.
[[nodiscard]] std::optional<std::int64_t> read_jobs(const std::optional<std::string>& text,
                                                    const char* what);

}  // namespace csx::cli
