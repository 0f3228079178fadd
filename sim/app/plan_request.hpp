// `csxsim plan` as a typed request and its outcome, for the CLI and the Python module
// (docs/python.md#python): read from the options given (app/option_table.hpp), the cluster
// search (app/cluster_plan.hpp), the output files.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/cluster_plan.hpp"
#include "app/option_table.hpp"

namespace csx::app {

struct PlanRequest {
  std::string model_path;  // the scenario or Model Zoo file (resolve_model_path)
  Overrides overrides;     // the job options but --num-csx and --batch-size; tokens is set
  std::vector<std::int64_t> batch_sizes;    // --batch-size (samples); empty: the file's
  std::vector<std::int64_t> clusters;       // --num-csx, ascending, each once; empty: deadline
  std::optional<std::string> num_csx_text;  // --num-csx as given (unset: a deadline plan)
  std::optional<double> deadline_s;         // --deadline (seconds)
  std::optional<std::int64_t> max_num_csx;  // --max-num-csx (systems)
  std::optional<std::int64_t> seq_len;      // --seq-len (tokens)
  int jobs = 0;                             // --jobs: simulation processes (0: one per core)
  std::vector<std::string> variants;        // NAME:KEY=VALUE[,KEY=VALUE...]
  std::string csv, json;                    // output files; "" for none
};

// The request of the options given to `plan`. Throws InputError without --tokens, with both or
// neither of --deadline and --num-csx, with --max-num-csx but no --deadline, for a model that
// is no file and no models/ name, and for a malformed value (naming the flag).
[[nodiscard]] PlanRequest read_plan_request(const GivenOptions& given);

struct PlanOutcome {
  std::string model_path;
  std::optional<double> deadline_s;
  nlohmann::ordered_json inputs;  // the --json inputs
  PlanResult result;
};

// Loads the model (its warnings on stderr), checks the output files against its files and runs
// plan_clusters. A file whose batch is per system (R_1.7.0 TensorFlow) is planned at that batch
// x the file's num_csx (else 1), said in a note on stderr. Throws as they do, and InputError
// when neither --batch-size nor the file gives a batch size or that product overflows.
[[nodiscard]] PlanOutcome execute_plan(const PlanRequest& request);
// Writes the request's --csv and --json (both or none). Throws InputError when a file cannot be
// written.
void write_plan_outputs(const PlanRequest& request, const PlanOutcome& plan);
// The message of plan's InfeasibleError when no cluster answers; empty otherwise.
[[nodiscard]] std::string plan_infeasible(const PlanOutcome& plan);

}  // namespace csx::app
