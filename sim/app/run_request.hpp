// `csxsim run` as a typed request and its result, for the CLI and the Python module
// (docs/python.md#python): read from the options given (app/option_table.hpp), executed,
// written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/job.hpp"
#include "app/option_table.hpp"

namespace csx::app {

// --trace-max-events' default.
inline constexpr std::int64_t kTraceMaxEvents = 500000;

struct RunRequest {
  std::string scenario_file;
  Overrides overrides;                  // the job options (app/job_options.hpp)
  std::optional<std::int64_t> seq_len;  // --seq-len (tokens)
  int jobs = 0;                         // --jobs: simulation processes (0: one per core)
  std::string csv, json, trace;         // output files; "" for none
  // --trace-systems as given (for messages) and read, in the order given: indices of csx-1 ...
  // (csx-0 is always shown).
  std::optional<std::string> trace_systems_text;
  std::vector<std::int64_t> trace_systems;
  std::int64_t trace_max_events = kTraceMaxEvents;  // events (--trace-max-events)
};

// The request of the options given to `run` (by the CLI or the Python module). Throws
// InputError naming the flag for a malformed value, a list of platforms, and --trace-systems or
// --trace-max-events without --trace.
[[nodiscard]] RunRequest read_run_request(const GivenOptions& given);

struct RunResult {
  Job job;
  std::vector<PassResult> results;  // one per pass
};

// Loads the scenario (its warnings on stderr), make_job, checks the output files against the
// inputs and --trace-systems against num_csx, run_job; a pass's notice goes to stderr. Throws
// as those do, and InputError for a trace above trace_max_events.
[[nodiscard]] RunResult execute_run(const RunRequest& request);

// Writes the request's --csv, --json and --trace files (all or none). Throws InputError when a
// file cannot be written.
void write_run_outputs(const RunRequest& request, const RunResult& run);

// The message of run's InfeasibleError when a pass has no fitting candidate; empty otherwise.
[[nodiscard]] std::string run_infeasible(const RunRequest& request, const RunResult& run);

}  // namespace csx::app
