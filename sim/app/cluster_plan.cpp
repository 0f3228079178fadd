// plan's cluster search: every cluster evaluated once, the smallest meeting a deadline.
#include "app/cluster_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>

#include "common/errors.hpp"
#include "report/results_csv.hpp"

namespace csx::app {
namespace {

class Planner {
 public:
  explicit Planner(const ClusterSearch& request) : request_(request) {}

  const Evaluation& evaluate(const PlatformSetup& setup, std::int64_t n, std::int64_t b) {
    const PointKey key{setup.label, n, b};
    if (const auto it = result_.evaluations.find(key); it != result_.evaluations.end())
      return it->second;
    Evaluation& e = result_.evaluations[key];
    e.key = key;
    Overrides o = setup.overrides;
    o.num_csx = n;
    o.batch_size = b;
    o.mode = io::Mode::kTrain;
    try {
      Job job = make_job(request_.scenario, o, request_.data_dir);
      job.simulation_processes = request_.simulation_processes;
      e.result = std::move(run_job(job).front());
      e.steps = job.training_steps.value_or(0);
      e.tokens_per_step = b * request_.scenario.model.seq_len;
      for (const auto& row : e.result.outcome.rows) {
        result_.rows.points[key] += io::csv_line(io::csv_record(e.result.context, row));
        if (row.chosen) {
          e.chosen = &row;
          if (const auto t = search::time_to_train(e.steps, model::Pass::kTrain, row)) e.time = *t;
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

  [[nodiscard]] const std::map<PointKey, Evaluation>& evaluations() const {
    return result_.evaluations;
  }
  [[nodiscard]] double auto_min_speedup() const { return request_.scenario.auto_min_speedup; }
  PlanResult& result() { return result_; }

 private:
  const ClusterSearch& request_;
  PlanResult result_;
};

struct SmallestSearch {
  std::optional<std::int64_t> num_csx;  // empty when no size meets the deadline
  std::int64_t last_doubling_miss = 0;  // 0 when size 1 was not a miss
  std::int64_t scanned_to = 0;          // the largest size of the scan after the doubling
};

// The search of plan_clusters (its header says how).
SmallestSearch smallest_meeting(Planner& planner, const PlatformSetup& setup, std::int64_t b,
                                std::int64_t max_n, double deadline_s) {
  const auto eval = [&](std::int64_t n) -> const Evaluation& {
    return planner.evaluate(setup, n, b);
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
    if (e.time.seconds <= deadline_s) {
      upper = n;
      break;
    }
    miss = n;
    if (n == max_n) return {std::nullopt, miss, miss};
  }
  const double ruled_out_above = deadline_s * (1 + planner.auto_min_speedup());
  for (std::int64_t n = miss + 1; n <= upper;) {
    const auto& e = eval(n);
    if (e.time.seconds <= deadline_s) return {n, miss, n};
    const std::int64_t p = (b + n - 1) / n;  // the largest size with this P: (b - 1) / (p - 1)
    n = e.time.seconds > ruled_out_above && p > 1 ? (b - 1) / (p - 1) + 1 : n + 1;
  }
  return {std::nullopt, miss, upper};
}

// Where the evaluated sizes of one platform and batch show that more systems took longer: the
// first such pair; empty when the evaluated times fall with num_csx.
std::optional<NonMonotony> non_monotony(const Planner& planner, const std::string& label,
                                        std::int64_t b, const SmallestSearch& search) {
  const Evaluation* fastest = nullptr;  // the fastest of the smaller sizes
  for (const auto& [key, e] : planner.evaluations()) {
    if (key.platform != label || key.batch_size != b || !e.chosen) continue;
    if (fastest && e.time.seconds > fastest->time.seconds)
      return NonMonotony{fastest, &e, search.last_doubling_miss, search.scanned_to};
    if (!fastest || e.time.seconds < fastest->time.seconds) fastest = &e;
  }
  return std::nullopt;
}

// The fastest cluster evaluated for this platform and batch, if any ran.
const Evaluation* fastest_of(const Planner& planner, const std::string& label, std::int64_t b) {
  const Evaluation* fastest = nullptr;
  for (const auto& [key, e] : planner.evaluations())
    if (key.platform == label && key.batch_size == b && e.chosen &&
        (!fastest || e.time.seconds < fastest->time.seconds))
      fastest = &e;
  return fastest;
}

// What set the deadline search's largest num_csx `limit`, each bound that equals it: the user's
// --max-num-csx, the batch (one sample per system at least), the platform's largest cluster
// (and a --max-num-csx beyond it).
std::string limit_reason(const ClusterSearch& request, const PlatformSetup& setup,
                         std::int64_t batch_size, std::int64_t limit) {
  const auto asked = request.max_num_csx;
  std::vector<std::string> why;
  if (asked && *asked == limit) why.emplace_back("--max-num-csx");
  if (batch_size == limit) why.emplace_back("one sample per system: the batch size");
  if (setup.spec.max_cluster_size == limit)
    why.push_back(fmt::format("the largest cluster of {}", setup.label));
  std::string text = fmt::format("{}", fmt::join(why, "; "));
  if (asked && *asked > limit) text += fmt::format("; --max-num-csx {} is beyond it", *asked);
  return text;
}

}  // namespace

PlanResult plan_clusters(const ClusterSearch& request) {
  Planner planner(request);
  auto& answers = planner.result().answers;
  const Evaluation* best = nullptr;
  for (const auto& setup : request.setups) {
    for (const auto b : request.batches) {
      if (request.deadline_s) {
        const double deadline_s = *request.deadline_s;
        const std::int64_t limit =
            std::min<std::int64_t>({setup.spec.max_cluster_size, b,
                                    request.max_num_csx.value_or(setup.spec.max_cluster_size)});
        const auto search = smallest_meeting(planner, setup, b, limit, deadline_s);
        PlanAnswer a{setup.label, b,     nullptr,
                     nullptr,     limit, limit_reason(request, setup, b, limit),
                     std::nullopt};
        if (search.last_doubling_miss > 1)
          a.non_monotony = non_monotony(planner, setup.label, b, search);
        if (!search.num_csx) {
          a.other = fastest_of(planner, setup.label, b);
          answers.push_back(a);
          continue;
        }
        const std::int64_t n = *search.num_csx;
        a.evaluation = &planner.evaluate(setup, n, b);
        if (n > 1) a.other = &planner.evaluate(setup, n - 1, b);
        const auto& e = *a.evaluation;
        if (!best || e.key.num_csx < best->key.num_csx ||
            (e.key.num_csx == best->key.num_csx && e.time.seconds < best->time.seconds))
          best = &e;
        answers.push_back(a);
      } else {
        for (const auto n : request.clusters) {
          const auto& e = planner.evaluate(setup, n, b);
          answers.push_back({setup.label, b, &e, nullptr, 0, {}, std::nullopt});
          if (e.chosen && (!best || e.time.seconds < best->time.seconds)) best = &e;
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
  planner.result().best = best;
  return std::move(planner.result());
}

}  // namespace csx::app
