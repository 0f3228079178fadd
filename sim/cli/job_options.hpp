// Options shared by run and sweep: everything that overrides a scenario.
#pragma once

#include <optional>

#include "app/job.hpp"
#include "cli/options.hpp"

namespace csx::cli {

// The largest --jobs of run and sweep (processes at once).
inline constexpr std::int64_t kMaxJobs = 1024;

// --jobs, if given: 1 to kMaxJobs `what` run at once. Throws InputError otherwise.
[[nodiscard]] std::optional<std::int64_t> read_jobs(const po::variables_map& vm, const char* what);

// The options run and sweep share; with `grid` (sweep), --num-csx, --batch-size and --platform
// are described as the lists they take there.
void add_job_options(po::options_description& desc, bool grid = false);
// Throws InputError for malformed values. With `grid`, --num-csx and --batch-size are lists
// read by the sweep, not single values.
[[nodiscard]] app::Overrides read_overrides(const po::variables_map& vm, bool grid = false);

}  // namespace csx::cli
