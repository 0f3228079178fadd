// `csxsim plan MODEL --tokens T (--deadline D | --num-csx LIST)`: options, app::plan_clusters,
// the table and the answers.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "app/cluster_plan.hpp"
#include "cli/amounts.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
#include "cli/platform_set.hpp"
#include "cli/results_output.hpp"
#include "common/errors.hpp"
#include "input/value_list.hpp"
#include "report/atomic_file.hpp"

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
void print_line(const std::string& columns, const std::string& last) {
  fmt::print("{}{}\n", columns, last.empty() ? "" : "  " + last);
}

void print_table(const std::map<app::PointKey, Evaluation>& evaluations,
                 std::optional<double> deadline_s) {
  print_line(fmt::format("{:<16} {:>10} {:>8} {:>6} {:>15} {:>10} {:>12} {:>11} {:>14}", "platform",
                         "batch_size", "num_csx", "MBS", "tokens/step", "steps", "step_time_s",
                         "samples/s", "time_to_train"),
             deadline_s ? "meets deadline" : "");
  for (const auto& [key, e] : evaluations) {
    if (!e.chosen) {
      print_line(
          fmt::format("{:<16} {:>10} {:>8} {:>6} {:>15} {:>10} {:>12} {:>11} {:>14}", key.platform,
                      key.batch_size, key.num_csx, "-", "-", "-", "-", "-", "-"),
          e.why_not);
      continue;
    }
    print_line(fmt::format("{:<16} {:>10} {:>8} {:>6} {:>15} {:>10} {:>12.4f} {:>11.2f} {:>14}",
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

int plan_command(const Args& args) {
  po::options_description desc("plan options");
  std::string model_arg;
  // clang-format off
  desc.add_options()
      ("model", po::value(&model_arg)->required(), "scenario, Model Zoo file or models/ name")
      ("tokens", po::value<std::string>(), "token budget (required): e.g. 1e12, 300B")
      ("deadline", po::value<std::string>(),
       "time to train at most this: e.g. 7d, 36h; answers the smallest num_csx")
      ("num-csx", po::value<std::string>(), "cluster sizes to report the time to train of (list)")
      ("max-num-csx", po::value<std::string>(),
       "largest num_csx the deadline search tries (default: the platform's largest cluster)")
      ("batch-size", po::value<std::string>(), "global batch sizes (list; default: the file's)")
      ("micro-batch-size", po::value<std::string>(), "auto | explore | none | INT | MIN:MAX")
      ("compile-only", "compile-only mode (required by explore)")
      ("max-explore", po::value<std::string>(),
       "explore tries at most this many sizes (default 10000); more is refused")
      ("platform", po::value<std::string>(), "cs2 | cs3 | platform file, or a list: cs2,cs3")
      ("seq-len", po::value<std::string>(), "sequence length override (tokens)")
      ("platform-override", po::value<std::vector<std::string>>()->composing(),
       "[P:]KEY=VALUE (repeatable)")
      ("csv", po::value<std::string>(),
       "write every evaluated candidate to this CSV (- for standard output; the answer then goes "
       "to standard error)")
      ("json", po::value<std::string>(),
       "the same records as JSON, with units and the inputs (- for standard output)")
      ("jobs,j", po::value<std::string>(), "simulation processes at once (default: one per CPU)")
      ("quiet,q", "print only the answer");
  // clang-format on
  add_platform_set_options(desc);
  po::positional_options_description pos;
  pos.add("model", 1);
  const auto vm = parse_options(
      args,
      "csxsim plan MODEL --tokens T (--deadline D | --num-csx LIST) [--batch-size LIST] "
      "[--platform P1,P2] [--variant NAME:KEY=VALUE,...] [--csv OUT]",
      desc, &pos);
  if (!vm) return 0;
  if (!vm->count("tokens"))
    throw InputError("plan needs --tokens (the training budget, e.g. 1e12)");
  if (vm->count("deadline") && vm->count("num-csx"))
    throw InputError(
        "plan takes --deadline (the smallest num_csx that meets it) or --num-csx (the time to "
        "train on those clusters), not both");
  if (!vm->count("deadline") && !vm->count("num-csx"))
    throw InputError(
        "plan needs --deadline (the smallest num_csx that meets it) or --num-csx (the time to "
        "train on those clusters)");
  if (vm->count("max-num-csx") && !vm->count("deadline"))
    throw InputError("--max-num-csx bounds the --deadline search; with --num-csx it does nothing");
  const std::string model_path = resolve_model_path(model_arg);
  auto out = output_paths(*vm, {"csv", "json"}, {model_path});
  const std::string &csv = out["csv"], &json = out["json"];
  std::optional<double> deadline_s;
  if (vm->count("deadline"))
    deadline_s = parse_duration_s((*vm)["deadline"].as<std::string>(), "--deadline");
  const auto max_n = optional_count(*vm, "max-num-csx");
  app::Overrides base = read_overrides(*vm, true);
  const auto scenario = io::load_scenario(model_path, data_dir(), optional_count(*vm, "seq-len"));
  print_warnings(scenario);
  check_outputs_against_model(*vm, {"csv", "json"}, scenario);
  std::vector<std::int64_t> batches;
  if (vm->count("batch-size"))
    batches = io::parse_value_list((*vm)["batch-size"].as<std::string>(), "--batch-size");
  else if (scenario.batch_size)
    batches = {*scenario.batch_size};
  else
    throw InputError(fmt::format(
        "{}: no training batch size in the file; pass --batch-size (a list is fine)", model_path));
  auto setups = expand_platforms(*vm, base, scenario.platform, data_dir());
  std::vector<std::int64_t> clusters;  // --num-csx, each once, ascending
  if (vm->count("num-csx")) {
    clusters = io::parse_value_list((*vm)["num-csx"].as<std::string>(), "--num-csx");
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
                                 static_cast<int>(read_jobs(*vm, "simulations").value_or(0)),
                                 data_dir()};
  const auto result = app::plan_clusters(request);
  std::vector<std::string> answers;
  for (const auto& a : result.answers) add_answer(answers, a, deadline_s);
  io::OutputFiles files;
  if (!csv.empty()) files.stage(csv, result.rows.render());
  if (!json.empty()) {
    auto inputs = job_inputs("plan", model_path, scenario, base);
    inputs["batch_size"] = batches;
    inputs["deadline_s"] =
        deadline_s ? nlohmann::ordered_json(*deadline_s) : nlohmann::ordered_json(nullptr);
    if (vm->count("num-csx")) inputs["num_csx"] = (*vm)["num-csx"].as<std::string>();
    if (vm->count("variant")) inputs["variants"] = (*vm)["variant"].as<std::vector<std::string>>();
    stage_results_json(files, json, inputs, result.rows.render());
  }
  // With --csv - or --json -, standard output carries the data alone: no table, the answer on
  // standard error.
  const bool data_out = data_on_stdout(*vm);
  std::FILE* answer_to = data_out ? stderr : stdout;
  if (!vm->count("quiet") && !data_out) {
    print_table(result.evaluations, deadline_s);
    fmt::print("\n");
  }
  for (const auto& a : answers) fmt::print(answer_to, "{}\n", a);
  if (const auto* best = result.best)
    fmt::print(answer_to, "answer: {}\n",
               deadline_s ? fmt::format("smallest cluster: {}", summary(*best))
                          : fmt::format("fastest: {}", summary(*best)));
  files.commit();
  if (!result.best) {
    if (deadline_s)
      throw InfeasibleError(fmt::format("no platform and batch size considered meets {}",
                                        human_duration(*deadline_s)));
    throw InfeasibleError("nothing fits on any cluster considered");
  }
  return 0;
}

}  // namespace csx::cli
