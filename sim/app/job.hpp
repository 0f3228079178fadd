// The job: a scenario with its overrides, resolved once (make_job), then searched and simulated
// for each pass (run_job). What run, sweep, plan and validate run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "input/scenario.hpp"
#include "model/layer_costs.hpp"
#include "platform/platform_spec.hpp"
#include "report/results_csv.hpp"
#include "search/search.hpp"

namespace csx::app {

// The request's overrides (command-line flags); unset fields keep the scenario's values.
struct Overrides {
  std::optional<std::int64_t> num_csx;     // systems
  std::optional<std::int64_t> batch_size;  // global batch, samples (every pass)
  // Where the two come from, for make_job's messages ("" names nothing: validate names its
  // entry, plan its cluster).
  std::string num_csx_where = "--num-csx", batch_size_where = "--batch-size";
  std::optional<batching::MbsSetting> micro_batch_size;  // wins over the file's (mbs_setting)
  std::optional<std::string> platform;
  std::optional<io::Mode> mode;
  bool compile_only = false;
  std::optional<std::int64_t> training_steps;  // steps, for time to train
  std::optional<double> tokens;  // token budget: training steps = ceil(tokens / tokens per step)
  std::string tokens_text;       // --tokens as typed ("300B"), for messages
  std::optional<std::int64_t> simulated_steps;  // steps simulated (2 to 100)
  // --input-rate: samples/s one dataloader process delivers (wins over the file's
  // simulation.input_samples_per_s; docs/model.md#input-pipeline).
  std::optional<double> input_samples_per_s;
  std::optional<std::int64_t> max_explore;  // --max-explore (default kMaxExploreCandidates)
  std::vector<std::pair<std::string, std::string>> platform_overrides;  // KEY=VALUE
  // A PLATFORM: override naming another platform is refused (a run has one platform) or,
  // when false, skipped (validate's entries each have their own).
  bool refuse_other_platform_overrides = true;
  std::string variant;  // name of the override set (sweep/plan --variant), shown in `platform`
  // The variant's own KEY=VALUE, applied after platform_overrides; messages name "--variant NAME".
  std::vector<std::pair<std::string, std::string>> variant_overrides;
};

// A fully resolved job (before any simulation): make_job's result.
struct Job {
  io::Scenario scenario;
  platform::PlatformSpec platform;
  std::string platform_label;  // the platform's name, "+variant" for a named override set
  std::string overrides_text;  // the applied overrides, "KEY=VALUE;..."
  model::ModelCosts costs;
  std::int64_t num_csx = 1;  // systems
  bool num_csx_defaulted = false;
  std::int64_t trace_max_events = 0;           // --trace-max-events with --trace (0: no bound)
  std::optional<std::int64_t> training_steps;  // steps; empty: no time to train
  std::string shard;                           // "I/N" for a sharded sweep's rows
  std::string grid;  // a sweep's grid identity (app::grid_identity); empty for run and plan
  struct Pass {
    model::Pass pass;
    std::int64_t batch_size = 0;      // global, samples
    batching::MbsSetting setting;     // the one mbs_setting picks
    batching::BatchSplit split;       // the batch over num_csx, split once
    batching::Resolution resolution;  // the setting resolved once
    // The input pipeline (docs/model.md#input-pipeline): samples/s one dataloader process
    // delivers (0: not simulated), where that rate comes from, and its SD in ln (0: the rate
    // given, taken as exact; the platform's input_workers.input_rate_log_sd for its rate).
    double input_samples_per_s = 0;
    std::string input_where;
    double input_log_sd = 0;
  };
  std::vector<Pass> passes;      // train, eval, or both
  int simulation_processes = 0;  // simulations run at once; 0: one per available CPU
  bool chosen_only = false;      // only the chosen rows are wanted (search::SearchRequest)
  bool record_trace =
      false;  // re-simulate the chosen candidate recording its timeline (run --trace)
  // run --trace-systems: systems shown besides csx-0 beyond 64 systems.
  std::vector<std::int64_t> trace_systems;
  // Of the prediction intervals: the platform's prediction_log_sd and the calibration runs of
  // the model's family and of the platform (input/calibration_counts.hpp).
  model::IntervalBasis interval;
};

struct PassResult {
  io::RowContext context;
  search::SearchOutcome outcome;
  std::string notice;  // the resolution's notice (a fixed MBS moved to a supported value)
};

// The request: `scenario` with the overrides `o`; `data_dir` holds platforms/
// (docs/cli.md#data-folder). The result: the job, every pass's batch split over num_csx and its
// setting resolved (batching::resolve). Validates everything that can be checked without simulating
// (num_csx against the platform, batch sizes present, B >= N, batch x seq_len <= 2^53 tokens,
// the MBS rules, the training length).
// Throws InputError (bad values, naming flag or file key) / RuleError (a microbatching rule).
[[nodiscard]] Job make_job(const io::Scenario& scenario, const Overrides& o,
                           const std::string& data_dir);

// The data processor of a pass's dataloader (the train or the val one's; "" when not named).
[[nodiscard]] const std::string& data_processor(const io::Scenario& s, model::Pass pass);

// The dataloader processes each input worker runs in a pass (the train or the val dataloader's).
[[nodiscard]] std::int64_t input_processes_per_worker(const io::Scenario& s, model::Pass pass);
// Samples per second the input workers of one CS-X deliver in a pass: the pass's rate of one
// process x its dataloader's processes per worker x num_workers_per_csx
// (docs/model.md#input-pipeline); 0 when its input is not simulated.
[[nodiscard]] double input_samples_per_csx(const io::Scenario& s, const Job::Pass& p);

// The `platform` column's value: the platform's name, "name+variant" for a named override set.
[[nodiscard]] std::string platform_label(const std::string& name, const std::string& variant);

// Training steps for a token budget: ceil(tokens / (training batch x seq_len)). Throws
// InputError for an eval-only job, a model without tokens, a budget below one step or above
// 1e15 steps; the messages echo `tokens_text` ("--tokens 300B") when given, else the number.
[[nodiscard]] std::int64_t steps_for_tokens(double tokens, const Job& job,
                                            const std::string& tokens_text = "");

// Runs the search of each pass (simulations in child processes, job.simulation_processes at
// once): one result per pass, in the job's order. Throws std::runtime_error when a simulation
// process fails (fork, pipe, a crashed or short child).
[[nodiscard]] std::vector<PassResult> run_job(const Job& job);

// The longest training make_job accepts, in steps (--steps, --tokens or the file's max_steps):
// far beyond any training run, and exact in a double and an int64.
inline constexpr double kMaxTrainingSteps = 1e15;

// What run_job searches for one of the job's passes.
[[nodiscard]] search::SearchRequest search_request(const Job& job, const Job::Pass& pass);

}  // namespace csx::app
