// `csxsim plan MODEL --tokens T (--deadline D | --num-csx LIST)`: options, app::plan_clusters,
// the table and the answers.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "app/cluster_plan.hpp"
#include "cli/amounts.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
#include "cli/option_descriptions.hpp"
#include "cli/requests.hpp"
#include "cli/results_output.hpp"
#include "common/errors.hpp"
#include "input/value_list.hpp"
#include "report/atomic_file.hpp"
#include "report/results_csv.hpp"

namespace csx::cli {
namespace {

using app::Evaluation;

// The note of a search that saw more systems take longer, naming which sizes it evaluated.
std::string monotony_note(const app::NonMonotony& m) {
  const auto miss = m.last_doubling_miss;
  const std::string scanned =
      m.scanned_to > miss
          ? fmt::format(
                "every size from {} to {} was evaluated or ruled out by a smaller one "
                "of the same per-system batch, below {} only the doubling sizes (1, "
                "2, 4, ..., {}: the others are taken to miss as {} does)",
                miss + 1, m.scanned_to, miss + 1, miss, miss)
          : fmt::format("only the doubling sizes (1, 2, 4, ..., {}) were evaluated", miss);
  return fmt::format(
      "note: the time to train is not monotone in num_csx here ({} takes {}, {} takes {}); "
      "{}",
      m.faster->key.num_csx, human_duration(m.faster->time.seconds), m.slower->key.num_csx,
      human_duration(m.slower->time.seconds), scanned);
}

// A table line: the fixed columns, then `last` (the deadline's yes/no, or why nothing runs)
// after two spaces when there is one.
void print_line(std::FILE* out, const std::string& columns, const std::string& last) {
  fmt::print(out, "{}{}\n", columns, last.empty() ? "" : "  " + last);
}

void print_table(std::FILE* out, const std::map<app::PointKey, Evaluation>& evaluations,
                 std::optional<double> deadline_s) {
  print_line(out,
             fmt::format("{:<16} {:>10} {:>8} {:>6} {:>15} {:>10} {:>12} {:>11} {:>14}", "platform",
                         "batch_size", "num_csx", "MBS", "tokens/step", "steps", "step_time_s",
                         "samples/s", "time_to_train"),
             deadline_s ? "meets deadline" : "");
  for (const auto& [key, e] : evaluations) {
    if (!e.chosen) {
      print_line(
          out,
          fmt::format("{:<16} {:>10} {:>8} {:>6} {:>15} {:>10} {:>12} {:>11} {:>14}", key.platform,
                      key.batch_size, key.num_csx, "-", "-", "-", "-", "-", "-"),
          e.why_not);
      continue;
    }
    print_line(out,
               fmt::format("{:<16} {:>10} {:>8} {:>6} {:>15} {:>10} {:>12.4f} {:>11.2f} {:>14}",
                           key.platform, key.batch_size, key.num_csx, e.chosen->micro_batch_size,
                           e.tokens_per_step, e.steps, e.chosen->sim.step_time_s,
                           e.chosen->samples_per_s, human_duration(e.time.seconds)),
               deadline_s ? (e.time.seconds <= *deadline_s ? "yes" : "no") : "");
  }
}

// The answer for one cluster: the time to train with its 80 % interval (the step time's).
std::string summary(const Evaluation& e) {
  return fmt::format(
      "{} x {} (batch_size {}, micro_batch_size {}) trains in {} (80 % interval {}; {} steps x "
      "{:.4f} s, bound: {})",
      e.key.num_csx, e.key.platform, e.key.batch_size, e.chosen->micro_batch_size,
      human_duration(e.time.seconds),
      human_duration_range(e.time.low_s, e.time.high_s, e.time.seconds), e.steps,
      e.chosen->sim.step_time_s, e.chosen->sim.bound);
}

// The answer lines of one platform and batch (with a deadline) or one cluster (without).
void add_answer(std::vector<std::string>& lines, const app::PlanAnswer& a,
                std::optional<double> deadline_s) {
  if (!deadline_s) {
    const auto& e = *a.evaluation;
    lines.push_back(e.chosen
                        ? fmt::format("{}, batch_size {}: {}", a.label, a.batch_size, summary(e))
                        : fmt::format("{}, batch_size {}, num_csx {}: {}", a.label, a.batch_size,
                                      e.key.num_csx, e.why_not));
    return;
  }
  if (a.non_monotony) lines.push_back(monotony_note(*a.non_monotony));
  if (!a.evaluation) {
    lines.push_back(fmt::format("{}, batch_size {}: no num_csx up to {} meets {}{}", a.label,
                                a.batch_size, a.limit, human_duration(*deadline_s),
                                a.other ? "; the fastest evaluated: " + summary(*a.other)
                                        : "; nothing evaluated runs (the table says why)"));
    return;
  }
  const auto& e = *a.evaluation;
  std::string why = "one system suffices";
  if (a.other)
    why = a.other->chosen ? fmt::format("{} would take {}", a.other->key.num_csx,
                                        human_duration(a.other->time.seconds))
                          : fmt::format("{}: {}", a.other->key.num_csx, a.other->why_not);
  lines.push_back(fmt::format("{}, batch_size {}: {}, within {}; {}", a.label, a.batch_size,
                              summary(e), human_duration(*deadline_s), why));
}

}  // namespace

std::string plan_model_path(const PlanRequest& q) {
  if (!q.options.tokens) throw InputError("plan needs --tokens (the training budget, e.g. 1e12)");
  if (q.deadline && q.options.num_csx)
    throw InputError(
        "plan takes --deadline (the smallest num_csx that meets it) or --num-csx (the time to "
        "train on those clusters), not both");
  if (!q.deadline && !q.options.num_csx)
    throw InputError(
        "plan needs --deadline (the smallest num_csx that meets it) or --num-csx (the time to "
        "train on those clusters)");
  if (q.max_num_csx && !q.deadline)
    throw InputError("--max-num-csx bounds the --deadline search; with --num-csx it does nothing");
  return resolve_model_path(q.model);
}

PlanOutcome execute_plan(const PlanRequest& q, const std::string& model_path) {
  PlanOutcome plan;
  plan.model_path = model_path;
  auto& deadline_s = plan.deadline_s;
  if (q.deadline) deadline_s = parse_duration_s(*q.deadline, "--deadline");
  const auto max_n = optional_count(q.max_num_csx, "--max-num-csx");
  app::Overrides base = read_overrides(q.options, true);
  const auto scenario =
      io::load_scenario(model_path, data_dir(), optional_count(q.seq_len, "--seq-len"));
  print_warnings(scenario);
  for (const auto& [path, flag] : {std::pair{q.csv, "--csv"}, std::pair{q.json, "--json"}})
    if (!path.empty() && path != io::kStandardOutput)
      io::check_output_path(path, flag, model_files(scenario.model));
  std::vector<std::int64_t> batches;
  if (q.options.batch_size)
    batches = io::parse_value_list(*q.options.batch_size, "--batch-size");
  else if (scenario.batch_size)
    batches = {*scenario.batch_size};
  else
    throw InputError(fmt::format(
        "{}: no training batch size in the file; pass --batch-size (a list is fine)", model_path));
  auto setups = app::platform_setups(base, q.variants, scenario.platform, data_dir());
  std::vector<std::int64_t> clusters;  // --num-csx, each once, ascending
  if (q.options.num_csx) {
    clusters = io::parse_value_list(*q.options.num_csx, "--num-csx");
    std::sort(clusters.begin(), clusters.end());
    clusters.erase(std::unique(clusters.begin(), clusters.end()), clusters.end());
  }
  std::sort(batches.begin(), batches.end());
  batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
  const app::PlanRequest request{scenario,
                                 std::move(setups),
                                 batches,
                                 deadline_s,
                                 max_n,
                                 clusters,
                                 static_cast<int>(read_jobs(q.jobs, "simulations").value_or(0)),
                                 data_dir()};
  plan.result = app::plan_clusters(request);
  for (const auto& a : plan.result.answers) add_answer(plan.answers, a, deadline_s);
  auto& inputs = plan.inputs = job_inputs("plan", model_path, scenario, base);
  inputs["batch_size"] = batches;
  inputs["deadline_s"] =
      deadline_s ? nlohmann::ordered_json(*deadline_s) : nlohmann::ordered_json(nullptr);
  if (q.options.num_csx) inputs["num_csx"] = *q.options.num_csx;
  if (!q.variants.empty()) inputs["variants"] = q.variants;
  return plan;
}

void print_plan(std::FILE* table, std::FILE* answers, const PlanOutcome& plan) {
  if (table) {
    print_table(table, plan.result.evaluations, plan.deadline_s);
    fmt::print(table, "\n");
  }
  for (const auto& a : plan.answers) fmt::print(answers, "{}\n", a);
  if (const auto* best = plan.result.best)
    fmt::print(answers, "answer: {}\n",
               plan.deadline_s ? fmt::format("smallest cluster: {}", summary(*best))
                               : fmt::format("fastest: {}", summary(*best)));
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

int plan_command(const Args& args) {
  po::options_description desc("plan options");
  add_command_options(desc, "plan");
  const auto pos = command_arguments("plan");
  const auto vm = parse_options(
      args,
      "csxsim plan MODEL --tokens T (--deadline D | --num-csx LIST) [--batch-size LIST] "
      "[--platform P1,P2] [--variant NAME:KEY=VALUE,...] [--csv OUT]",
      desc, &pos);
  if (!vm) return 0;
  PlanRequest q;
  read_given(q, given_options(*vm, "plan"));
  const std::string model_path = plan_model_path(q);
  auto out = output_paths(*vm, {"csv", "json"}, {model_path});
  q.csv = out["csv"];
  q.json = out["json"];
  const auto plan = execute_plan(q, model_path);
  // With --csv - or --json -, standard output carries the data alone: no table, the answer on
  // standard error.
  const bool data_out = data_on_stdout(*vm);
  print_plan(vm->count("quiet") || data_out ? nullptr : stdout, data_out ? stderr : stdout, plan);
  write_plan_outputs(q, plan);
  if (const auto why = plan_infeasible(plan); !why.empty()) throw InfeasibleError(why);
  return 0;
}

}  // namespace csx::cli
