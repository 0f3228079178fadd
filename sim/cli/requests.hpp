// run, plan, sweep and validate as requests and their results, shared by the CLI (the
// *_command functions) and the Python module (docs/python.md#python): a request is built from
// the flags or from the keyword arguments; the values are the flags' text, read (and refused,
// naming the flag) by the same code.
#pragma once

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/cluster_plan.hpp"
#include "app/job.hpp"
#include "app/option_table.hpp"
#include "app/sweep_table.hpp"
#include "cli/job_options.hpp"
#include "common/output_lock.hpp"
#include "report/results_schema.hpp"

namespace csx::cli {

struct ValidateRequest;

struct RunRequest {
  std::string scenario_file;
  JobOptionTexts options;
  std::optional<std::string> seq_len, jobs;  // --seq-len (tokens), --jobs (processes)
  std::string csv, json, trace;              // output files; "" for none
  std::optional<std::string> trace_systems, trace_max_events;
};

struct RunResult {
  app::Overrides overrides;
  app::Job job;
  std::vector<app::PassResult> results;  // one per pass
};

// Reads the request (InputError naming the flag for a bad value), loads the scenario (its
// warnings on stderr), app::make_job, checks the output files against the inputs,
// app::run_job; a pass's notice goes to stderr. Throws as those do.
[[nodiscard]] RunResult execute_run(const RunRequest& request);

// The table `csxsim run` prints: the job's header and each pass's candidates.
void print_run(std::FILE* out, const RunResult& run);

// Writes the request's --csv, --json and --trace files (all or none). Throws InputError for a
// trace above --trace-max-events.
void write_run_outputs(const RunRequest& request, const RunResult& run);

// The message of run's InfeasibleError when a pass has no fitting candidate; empty otherwise.
[[nodiscard]] std::string run_infeasible(const RunRequest& request, const RunResult& run);

// --- plan ---

struct PlanRequest {
  std::string model;  // scenario, Model Zoo file or models/ name
  // num_csx and batch_size are lists; tokens is required.
  JobOptionTexts options;
  std::optional<std::string> deadline, max_num_csx, seq_len, jobs;
  std::vector<std::string> variants;  // NAME:KEY=VALUE[,KEY=VALUE...]
  std::string csv, json;              // output files; "" for none
};

struct PlanOutcome {
  std::string model_path;
  std::optional<double> deadline_s;
  nlohmann::ordered_json inputs;  // the --json inputs
  app::PlanResult result;
  std::vector<std::string> answers;  // the answer lines, without the final "answer: "
};

// The request's model file, once the options that must come together do (InputError otherwise).
[[nodiscard]] std::string plan_model_path(const PlanRequest& request);
// Reads the request, loads the model and runs app::plan_clusters. Throws as they do.
[[nodiscard]] PlanOutcome execute_plan(const PlanRequest& request, const std::string& model_path);
// The table (to `table`, unless null), then the answers and the final answer line to `answers`.
void print_plan(std::FILE* table, std::FILE* answers, const PlanOutcome& plan);
void write_plan_outputs(const PlanRequest& request, const PlanOutcome& plan);
// The message of plan's InfeasibleError when no cluster answers; empty otherwise.
[[nodiscard]] std::string plan_infeasible(const PlanOutcome& plan);

// --- sweep ---

struct SweepRequest {
  std::string scenario_file;
  JobOptionTexts options;  // num_csx and batch_size: the grid's lists (required)
  std::optional<std::string> seq_len, jobs, shard;
  std::vector<std::string> variants;  // NAME:KEY=VALUE[,KEY=VALUE...]
  // The CSV: the checkpoint --resume reads, written as points finish; io::kStandardOutput:
  // none (the rows stay in memory).
  std::string csv = "-";
  std::string json;  // "" for none
  bool resume = false;
  bool check_only = false;
  bool quiet = false;  // no progress bar (and, with check_only, no line on `out`)
};

struct SweepOutcome {
  app::SweepTable table;  // the rows, by point
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

// Reads the request, expands the grid and runs this shard's points (app/sweep_grid.hpp) in
// worker processes, with a progress bar on stderr (a terminal's, unless quiet) and the notes of
// skipped points; check_only prints its line to `out` and runs nothing. An interruption stops
// the points (the CSV checkpoint written) and is returned in `signal`. Throws InputError /
// RuleError for bad input, std::runtime_error when a point fails.
[[nodiscard]] SweepOutcome execute_sweep(const SweepRequest& request, std::FILE* out);
// The chosen row of each point, one line each, and the totals, naming `csv`.
void print_sweep_summary(std::FILE* out, const SweepOutcome& s, const std::string& csv);
// The message of sweep's InfeasibleError when no point has a fitting candidate; else empty.
[[nodiscard]] std::string sweep_infeasible(const SweepOutcome& s, const std::string& csv);

// --- the requests' fields from the options given ---

// Each request's fields from the options given to its command (app/option_table.hpp), by the
// CLI or the Python module: the flags' text, read by execute_*; the output files as given, for
// the caller to check.
void read_given(RunRequest& q, const app::GivenOptions& given);
void read_given(PlanRequest& q, const app::GivenOptions& given);
void read_given(SweepRequest& q, const app::GivenOptions& given);
void read_given(ValidateRequest& q, const app::GivenOptions& given);

// --- candidates and describe: the objects their --json prints ---

// The batching rules of `batch` samples over `num_csx` systems with setting `mbs` (the flags'
// text). Throws InputError naming the flag.
[[nodiscard]] nlohmann::ordered_json candidates_json(const std::string& batch,
                                                     const std::string& num_csx,
                                                     const std::string& mbs);
// A model (file or models/ name) on a platform (name or file). Throws as the loaders do.
[[nodiscard]] nlohmann::ordered_json describe_json(const std::string& model,
                                                   const std::string& platform,
                                                   const std::optional<std::string>& seq_len);

// --- validate ---

struct ValidateRequest {
  std::optional<std::string> reference;         // default: default_reference()
  std::vector<std::string> platform_overrides;  // [PLATFORM:]KEY=VALUE
  std::optional<std::string> only, only_platform;
  bool measurements_only = false;
  std::string csv, json;  // output files; "" for none
};

struct ValidateOutcome {
  std::vector<io::Record> records;  // one per measured run (io::validation_schema)
  std::string csv;                  // the records' CSV, with the header
  nlohmann::ordered_json inputs;    // the --json inputs
  int failed = 0;                   // checks that failed (the CLI's exit status 1)
};

// platforms/calibration/measurements.yaml of the data folder.
[[nodiscard]] std::string default_reference();
// Reads the reference and runs its checks, printing the report to `out`. Throws as
// app::read_reference does.
[[nodiscard]] ValidateOutcome execute_validate(const ValidateRequest& request, std::FILE* out);
void write_validate_outputs(const ValidateRequest& request, const ValidateOutcome& v);

}  // namespace csx::cli
