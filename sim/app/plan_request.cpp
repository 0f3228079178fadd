// `plan`: the request from the options given, the cluster search, its outputs.
#include "app/plan_request.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <limits>

#include "app/amounts.hpp"
#include "app/data_folder.hpp"
#include "app/job_options.hpp"
#include "app/platform_setup.hpp"
#include "app/results_output.hpp"
#include "common/errors.hpp"
#include "input/value_list.hpp"
#include "report/atomic_file.hpp"
#include "report/results_csv.hpp"

namespace csx::app {
PlanRequest read_plan_request(const GivenOptions& given) {
  const bool deadline = given.has("deadline"), num_csx = given.has("num-csx");
  if (!given.has("tokens"))
    throw InputError("plan needs --tokens (the training budget, e.g. 1e12)");
  if (deadline && num_csx)
    throw InputError(
        "plan takes --deadline (the smallest num_csx that meets it) or --num-csx (the time to "
        "train on those clusters), not both");
  if (!deadline && !num_csx)
    throw InputError(
        "plan needs --deadline (the smallest num_csx that meets it) or --num-csx (the time to "
        "train on those clusters)");
  if (given.has("max-num-csx") && !deadline)
    throw InputError("--max-num-csx bounds the --deadline search; with --num-csx it does nothing");
  PlanRequest q;
  q.model_path = resolve_model_path(given.text("model").value_or(""));
  if (const auto d = given.text("deadline")) q.deadline_s = parse_duration_s(*d, "--deadline");
  q.max_num_csx = optional_count(given.text("max-num-csx"), "--max-num-csx");
  q.overrides = read_overrides(given, true);
  q.seq_len = optional_count(given.text("seq-len"), "--seq-len");
  if (const auto b = given.text("batch-size"))
    q.batch_sizes = io::parse_value_list(*b, "--batch-size");
  q.num_csx_text = given.text("num-csx");
  if (q.num_csx_text) {
    q.clusters = io::parse_value_list(*q.num_csx_text, "--num-csx");
    io::sort_unique(q.clusters);
  }
  q.jobs = static_cast<int>(read_jobs(given.text("jobs"), "simulations").value_or(0));
  q.variants = given.texts("variant");
  q.csv = given.text("csv").value_or("");
  q.json = given.text("json").value_or("");
  return q;
}

PlanOutcome execute_plan(const PlanRequest& q) {
  PlanOutcome plan;
  plan.model_path = q.model_path;
  plan.deadline_s = q.deadline_s;
  const auto scenario = io::load_scenario(q.model_path, data_dir(), q.seq_len);
  print_warnings(scenario);
  std::vector<std::int64_t> batches = q.batch_sizes;
  if (batches.empty() && scenario.batch_size) {
    batches = {*scenario.batch_size};
    if (scenario.batch_size_per_system) {
      // An R_1.7.0 TensorFlow file's batch is per system: plan holds the global batch of the
      // file's cluster (num_csx, else 1) fixed while it varies num_csx, and says so.
      const std::int64_t n = scenario.num_csx.value_or(1);
      if (*scenario.batch_size > std::numeric_limits<std::int64_t>::max() / n)
        throw InputError(fmt::format("{}: batch_size {} per system x num_csx {} overflows",
                                     q.model_path, *scenario.batch_size, n));
      batches = {*scenario.batch_size * n};
      fmt::print(stderr,
                 "note: {} sets the batch of each system ({}); plan holds the global batch at "
                 "{} x {} = {} ({}) while it varies num_csx, not {} x num_csx as run reads it; "
                 "pass --batch-size for another\n",
                 q.model_path, *scenario.batch_size, *scenario.batch_size, n, batches[0],
                 scenario.num_csx ? "num_csx of " + scenario.num_csx_where : "num_csx not set: 1",
                 *scenario.batch_size);
    }
  }
  if (batches.empty())
    throw InputError(
        fmt::format("{}: no training batch size in the file; pass --batch-size (a list is fine){}",
                    q.model_path, scenario.batch_size_hint));
  auto setups = platform_setups(q.overrides, q.variants, scenario.platform, scenario.platform_where,
                                data_dir());
  // The searched num_csx is named by the plan's cluster, not by a flag, under --deadline.
  for (auto& setup : setups) {
    if (q.batch_sizes.empty()) setup.overrides.batch_size_where = scenario.batch_size_where;
    if (!q.num_csx_text) setup.overrides.num_csx_where = "";
  }
  check_outputs({{q.csv, "--csv"}, {q.json, "--json"}},
                input_files(q.model_path, scenario, platform_files(setups)));
  io::sort_unique(batches);
  const ClusterSearch search{scenario,      std::move(setups), batches, q.deadline_s,
                             q.max_num_csx, q.clusters,        q.jobs,  data_dir()};
  plan.result = plan_clusters(search);
  auto& inputs = plan.inputs = job_inputs("plan", q.model_path, scenario, q.overrides);
  inputs["batch_size"] = batches;
  inputs["deadline_s"] =
      q.deadline_s ? nlohmann::ordered_json(*q.deadline_s) : nlohmann::ordered_json(nullptr);
  if (q.num_csx_text) inputs["num_csx"] = q.clusters;  // a list, as sweep's
  if (!q.variants.empty()) inputs["variants"] = q.variants;
  return plan;
}

void write_plan_outputs(const PlanRequest& q, const PlanOutcome& plan) {
  io::OutputFiles files;
  if (!q.csv.empty()) files.stage(q.csv, plan.result.rows.render());
  if (!q.json.empty())
    stage_results_json(files, q.json, plan.inputs, io::candidate_columns(),
                       plan.result.rows.records());
  files.commit();
}

std::string plan_infeasible(const PlanOutcome& plan) {
  if (plan.result.best) return "";
  if (plan.deadline_s)
    return fmt::format("no platform and batch size considered meets {}",
                       human_duration(*plan.deadline_s));
  return "nothing fits on any cluster considered";
}

}  // namespace csx::app
