// `csxsim sweep` as a typed request and its outcome, for the CLI and the Python module
// (docs/python.md#python): read from the options given (app/option_table.hpp), the grid run in
// worker processes (app/sweep_grid.hpp), the output files.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/job.hpp"
#include "app/option_table.hpp"
#include "app/sweep_table.hpp"
#include "common/output_lock.hpp"
#include "report/atomic_file.hpp"

namespace csx::app {

struct SweepRequest {
  std::string scenario_file;
  Overrides overrides;                    // the job options but --num-csx and --batch-size
  std::vector<std::int64_t> num_csx;      // the grid's --num-csx, as listed
  std::vector<std::int64_t> batch_sizes;  // the grid's --batch-size (samples), as listed
  std::optional<std::int64_t> seq_len;    // --seq-len (tokens)
  std::int64_t jobs = 1;                  // --jobs: grid points at once
  std::pair<std::int64_t, std::int64_t> shard{0, 1};  // --shard I/N
  std::vector<std::string> variants;                  // NAME:KEY=VALUE[,KEY=VALUE...]
  // The options given that decide the rows (name, value text), for grid_identity.
  std::vector<std::pair<std::string, std::string>> row_options;
  // The CSV: the checkpoint --resume reads, written as points finish; io::kStandardOutput:
  // none (the rows stay in memory).
  std::string csv = "-";
  std::string json;  // "" for none
  bool resume = false;
  bool check_only = false;
  bool quiet = false;  // no progress bar (and, with check_only, no line on `out`)
};

// The request of the options given to `sweep`. Throws InputError without --num-csx and
// --batch-size, for --csv - with --resume, and for a malformed value (naming the flag).
[[nodiscard]] SweepRequest read_sweep_request(const GivenOptions& given);

struct SweepOutcome {
  SweepTable table;       // the rows, by point
  std::size_t kept = 0;   // points kept from the CSV (resume)
  std::size_t total = 0;  // points of this shard
  std::size_t refused = 0;
  double elapsed_s = 0;
  int signal = 0;  // the SIGINT or SIGTERM that stopped the sweep (0: it finished)
  bool checked_only = false;
  nlohmann::ordered_json inputs;  // the --json inputs
  // Held until the outcome is gone: no other sweep writes the CSV before it is final.
  std::shared_ptr<OutputLock> csv_lock;
};

// Loads the scenario, expands the grid and runs this shard's points in worker processes, with
// a progress bar on stderr (a terminal's, unless quiet); a --csv file is locked (OUT.lock)
// and written as the checkpoint as points finish, and the notes of skipped points;
// check_only prints its line to `out` and runs nothing. An interruption stops the points (the
// CSV checkpoint written) and is returned in `signal`. Throws InputError / RuleError for bad
// input, std::runtime_error when a point fails.
[[nodiscard]] SweepOutcome execute_sweep(const SweepRequest& request, std::FILE* out);
// Stages the finished sweep's --csv and --json in `files`, for the caller to commit (both or
// none) once its summary is printed.
void stage_sweep_outputs(io::OutputFiles& files, const SweepRequest& request,
                         const SweepOutcome& s);
// The message of sweep's InfeasibleError when no point has a fitting candidate; else empty.
[[nodiscard]] std::string sweep_infeasible(const SweepOutcome& s, const std::string& csv);

}  // namespace csx::app
