// `csxsim plan MODEL --tokens T (--deadline D | --num-csx LIST)`: the smallest cluster that
// trains a token budget by a deadline, or the time to train on given clusters, for each
// platform (and variant) and batch size.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "app/job.hpp"
#include "cli/amounts.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
#include "cli/platform_set.hpp"
#include "cli/results_output.hpp"
#include "cli/sweep_table.hpp"
#include "common/errors.hpp"
#include "input/value_list.hpp"
#include "report/atomic_file.hpp"
#include "report/results_csv.hpp"

namespace csx::cli {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// One evaluated cluster: the chosen candidate of the training pass, or why there is none.
struct Evaluation {
  PointKey key;
  std::int64_t steps = 0;
  std::int64_t tokens_per_step = 0;
  double time_s = kNever;  // time to train; infinite when nothing fits or a rule refuses
  const search::CandidateResult* chosen = nullptr;
  std::string why_not;   // a rule's refusal or why nothing fits
  bool refused = false;  // a rule refuses this cluster (e.g. MBS above the per-system batch)
  app::PassResult result;
};

class Planner {
 public:
  Planner(const io::Scenario& scenario, int processes)
      : scenario_(scenario), processes_(processes) {}

  const Evaluation& evaluate(const app::Overrides& setup, const std::string& label, std::int64_t n,
                             std::int64_t b) {
    const PointKey key{label, n, b};
    if (const auto it = done_.find(key); it != done_.end()) return it->second;
    Evaluation& e = done_[key];
    e.key = key;
    app::Overrides o = setup;
    o.num_csx = n;
    o.batch_size = b;
    o.mode = io::Mode::kTrain;
    try {
      app::Job job = app::make_job(scenario_, o, data_dir());
      job.simulation_processes = processes_;
      e.result = std::move(app::run_job(job).front());
      e.steps = job.training_steps.value_or(0);
      e.tokens_per_step = b * scenario_.model.seq_len;
      for (const auto& row : e.result.outcome.rows) {
        rows_.points[key] += io::csv_row(e.result.context, row);
        if (row.chosen) {
          e.chosen = &row;
          e.time_s = static_cast<double>(e.steps) * row.sim.step_time_s;
        }
      }
      if (!e.chosen)
        e.why_not =
            e.result.outcome.rows.empty() ? "nothing fits" : e.result.outcome.rows.back().reason;
    } catch (const RuleError& err) {
      e.why_not = err.what();
      e.refused = true;
    }
    return e;
  }

  [[nodiscard]] const std::map<PointKey, Evaluation>& evaluations() const { return done_; }
  [[nodiscard]] double auto_min_speedup() const { return scenario_.auto_min_speedup; }
  [[nodiscard]] const SweepTable& rows() const { return rows_; }

 private:
  const io::Scenario& scenario_;
  int processes_;
  std::map<PointKey, Evaluation> done_;
  SweepTable rows_;
};

// Smallest num_csx in [1, max_n] whose time to train is within the deadline: doubling from 1
// to the first size that meets it (or that a rule refuses), then every size between the last
// miss and it, in ascending order, until one meets the deadline. Under `auto` the time to train
// is not monotone in num_csx (the per-system batch, and with it the micro-batch size, changes
// with every size), so bisecting there could skip the answer; only the sizes below the last
// doubling miss are taken to miss without being evaluated (README, "Questions csxsim answers").
// In the scan, sizes with the per-system batch P = ceil(B / N) of a smaller size that misses are
// ruled out when it misses by more than auto's threshold: they run the same work on the fullest
// system (same candidates, same memory) over a SwarmX tree at least as deep, so each candidate
// takes at least as long, and auto's choice is within (1 + auto_min_speedup) of the fastest
// candidate. Rules refuse sizes from some size on (e.g. B < N), so that edge is found by
// bisection.
struct SmallestSearch {
  std::optional<std::int64_t> num_csx;  // empty when no size meets the deadline
  std::int64_t last_doubling_miss = 0;  // 0 when size 1 was not a miss
  std::int64_t scanned_to = 0;          // the largest size of the scan after the doubling
};
SmallestSearch smallest_meeting(Planner& planner, const PlatformSetup& setup, std::int64_t b,
                                std::int64_t max_n, double deadline_s) {
  const auto eval = [&](std::int64_t n) -> const Evaluation& {
    return planner.evaluate(setup.overrides, setup.label, n, b);
  };
  std::int64_t miss = 0, upper = 0;  // every size in (miss, upper] is scanned
  for (std::int64_t n = 1;; n = std::min(2 * n, max_n)) {
    const auto& e = eval(n);
    if (e.refused) {
      // The rules allow miss (or nothing) and refuse n: the largest allowed size in between.
      std::int64_t allowed = miss, refused = n;
      while (refused - allowed > 1) {
        const std::int64_t mid = allowed + (refused - allowed) / 2;
        (eval(mid).refused ? refused : allowed) = mid;
      }
      upper = allowed;
      break;
    }
    if (e.time_s <= deadline_s) {
      upper = n;
      break;
    }
    miss = n;
    if (n == max_n) return {std::nullopt, miss, miss};
  }
  const double ruled_out_above = deadline_s * (1 + planner.auto_min_speedup());
  for (std::int64_t n = miss + 1; n <= upper;) {
    const auto& e = eval(n);
    if (e.time_s <= deadline_s) return {n, miss, n};
    const std::int64_t p = (b + n - 1) / n;  // the largest size with this P: (b - 1) / (p - 1)
    n = e.time_s > ruled_out_above && p > 1 ? (b - 1) / (p - 1) + 1 : n + 1;
  }
  return {std::nullopt, miss, upper};
}

// Where the evaluated sizes of one platform and batch show that more systems took longer:
// the first such pair, and which sizes were evaluated, as a note; empty when the evaluated
// times fall with num_csx.
std::string monotony_note(const Planner& planner, const std::string& label, std::int64_t b,
                          const SmallestSearch& search) {
  const Evaluation* fastest = nullptr;  // the fastest of the smaller sizes
  for (const auto& [key, e] : planner.evaluations()) {
    if (key.platform != label || key.batch_size != b || !e.chosen) continue;
    if (fastest && e.time_s > fastest->time_s) {
      const auto m = search.last_doubling_miss;
      const std::string scanned =
          search.scanned_to > m
              ? fmt::format(
                    "every size from {} to {} was evaluated or ruled out by a smaller one "
                    "of the same per-system batch, below {} only the doubling sizes (1, "
                    "2, 4, ..., {}: the others are taken to miss as {} does)",
                    m + 1, search.scanned_to, m + 1, m, m)
              : fmt::format("only the doubling sizes (1, 2, 4, ..., {}) were evaluated", m);
      return fmt::format(
          "note: the time to train is not monotone in num_csx here ({} takes {}, {} takes {}); "
          "{}",
          fastest->key.num_csx, human_duration(fastest->time_s), key.num_csx,
          human_duration(e.time_s), scanned);
    }
    if (!fastest || e.time_s < fastest->time_s) fastest = &e;
  }
  return "";
}

void print_table(const Planner& planner, double deadline_s) {
  fmt::print("{:<16} {:>10} {:>8} {:>6} {:>15} {:>10} {:>12} {:>11} {:>14}  {}\n", "platform",
             "batch_size", "num_csx", "MBS", "tokens/step", "steps", "step_time_s", "samples/s",
             "time_to_train", std::isfinite(deadline_s) ? "meets deadline" : "");
  for (const auto& [key, e] : planner.evaluations()) {
    if (!e.chosen) {
      fmt::print("{:<16} {:>10} {:>8} {:>6} {:>15} {:>10} {:>12} {:>11} {:>14}  {}\n", key.platform,
                 key.batch_size, key.num_csx, "-", "-", "-", "-", "-", "-", e.why_not);
      continue;
    }
    fmt::print("{:<16} {:>10} {:>8} {:>6} {:>15} {:>10} {:>12.4f} {:>11.2f} {:>14}  {}\n",
               key.platform, key.batch_size, key.num_csx, e.chosen->micro_batch_size,
               e.tokens_per_step, e.steps, e.chosen->sim.step_time_s, e.chosen->samples_per_s,
               human_duration(e.time_s),
               std::isfinite(deadline_s) ? (e.time_s <= deadline_s ? "yes" : "no") : "");
  }
}

// The answer for one cluster: the time to train with its 80 % interval (the step time's).
std::string summary(const Evaluation& e) {
  const double steps = static_cast<double>(e.steps);
  return fmt::format(
      "{} x {} (batch_size {}, micro_batch_size {}) trains in {} (80 % interval {}; {} steps x "
      "{:.4f} s, bound: {})",
      e.key.num_csx, e.key.platform, e.key.batch_size, e.chosen->micro_batch_size,
      human_duration(e.time_s),
      human_duration_range(steps * e.chosen->interval.step_time_s_low,
                           steps * e.chosen->interval.step_time_s_high, e.time_s),
      e.steps, e.chosen->sim.step_time_s, e.chosen->sim.bound);
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
      ("csv", po::value<std::string>(), "write every evaluated candidate to this CSV")
      ("json", po::value<std::string>(), "the same records as JSON, with units and the inputs")
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
  const double deadline_s =
      vm->count("deadline") ? parse_duration_s((*vm)["deadline"].as<std::string>(), "--deadline")
                            : kNever;
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
  const auto setups = expand_platforms(*vm, base, scenario.platform, data_dir());
  std::vector<std::int64_t> clusters;  // --num-csx, each once, ascending
  if (vm->count("num-csx")) {
    clusters = io::parse_value_list((*vm)["num-csx"].as<std::string>(), "--num-csx");
    std::sort(clusters.begin(), clusters.end());
    clusters.erase(std::unique(clusters.begin(), clusters.end()), clusters.end());
  }
  std::sort(batches.begin(), batches.end());
  batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
  Planner planner(scenario, static_cast<int>(read_jobs(*vm, "simulations").value_or(0)));
  std::vector<std::string> answers;
  const Evaluation* best = nullptr;
  const bool with_deadline = vm->count("deadline") > 0;
  for (const auto& setup : setups) {
    const auto& label = setup.label;
    for (const auto b : batches) {
      if (with_deadline) {
        const std::int64_t limit = std::min<std::int64_t>(
            {setup.spec.max_cluster_size, b, max_n.value_or(setup.spec.max_cluster_size)});
        const auto search = smallest_meeting(planner, setup, b, limit, deadline_s);
        const auto& n = search.num_csx;
        if (search.last_doubling_miss > 1) {
          auto note = monotony_note(planner, label, b, search);
          if (!note.empty()) answers.push_back(std::move(note));
        }
        if (!n) {
          // The fastest cluster evaluated for this platform and batch, if any ran.
          const Evaluation* fastest = nullptr;
          for (const auto& [key, e] : planner.evaluations())
            if (key.platform == label && key.batch_size == b && e.chosen &&
                (!fastest || e.time_s < fastest->time_s))
              fastest = &e;
          answers.push_back(fmt::format("{}, batch_size {}: no num_csx up to {} meets {}{}", label,
                                        b, limit, human_duration(deadline_s),
                                        fastest ? "; the fastest evaluated: " + summary(*fastest)
                                                : "; nothing evaluated runs (the table says why)"));
          continue;
        }
        const auto& e = planner.evaluate(setup.overrides, label, *n, b);
        std::string why = "one system suffices";
        if (*n > 1) {
          const auto& smaller = planner.evaluate(setup.overrides, label, *n - 1, b);
          why = smaller.chosen
                    ? fmt::format("{} would take {}", *n - 1, human_duration(smaller.time_s))
                    : fmt::format("{}: {}", *n - 1, smaller.why_not);
        }
        answers.push_back(fmt::format("{}, batch_size {}: {}, within {}; {}", label, b, summary(e),
                                      human_duration(deadline_s), why));
        if (!best || e.key.num_csx < best->key.num_csx ||
            (e.key.num_csx == best->key.num_csx && e.time_s < best->time_s))
          best = &e;
      } else {
        for (const auto n : clusters) {
          const auto& e = planner.evaluate(setup.overrides, label, n, b);
          answers.push_back(
              e.chosen ? fmt::format("{}, batch_size {}: {}", label, b, summary(e))
                       : fmt::format("{}, batch_size {}, num_csx {}: {}", label, b, n, e.why_not));
          if (e.chosen && (!best || e.time_s < best->time_s)) best = &e;
        }
      }
    }
  }
  // Every cluster refused by a rule is bad input (exit 2, no file), as in run.
  const auto& evals = planner.evaluations();
  if (!evals.empty() &&
      std::all_of(evals.begin(), evals.end(), [](const auto& kv) { return kv.second.refused; }))
    throw RuleError(fmt::format("every cluster considered is refused; first: {}",
                                evals.begin()->second.why_not));
  io::OutputFiles files;
  if (!csv.empty()) files.stage(csv, planner.rows().render());
  if (!json.empty()) {
    auto inputs = job_inputs("plan", model_path, scenario, base);
    inputs["batch_size"] = batches;
    inputs["deadline_s"] = vm->count("deadline") ? nlohmann::ordered_json(deadline_s)
                                                 : nlohmann::ordered_json(nullptr);
    if (vm->count("num-csx")) inputs["num_csx"] = (*vm)["num-csx"].as<std::string>();
    if (vm->count("variant")) inputs["variants"] = (*vm)["variant"].as<std::vector<std::string>>();
    stage_results_json(files, json, inputs, planner.rows().render());
  }
  if (!vm->count("quiet")) {
    print_table(planner, with_deadline ? deadline_s : kNever);
    fmt::print("\n");
  }
  for (const auto& a : answers) fmt::print("{}\n", a);
  if (best)
    fmt::print("answer: {}\n", with_deadline ? fmt::format("smallest cluster: {}", summary(*best))
                                             : fmt::format("fastest: {}", summary(*best)));
  files.commit();
  if (!best) {
    if (with_deadline)
      throw InfeasibleError(fmt::format("no platform and batch size considered meets {}",
                                        human_duration(deadline_s)));
    throw InfeasibleError("nothing fits on any cluster considered");
  }
  return 0;
}

}  // namespace csx::cli
