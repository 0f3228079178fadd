// `plan`'s question: the smallest cluster that trains a token budget by a deadline, or the time
// to train on given clusters, for each platform (and variant) and batch size.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/job.hpp"
#include "app/platform_setup.hpp"
#include "app/sweep_table.hpp"
#include "common/move_only.hpp"
#include "input/scenario.hpp"
#include "search/time_to_train.hpp"

namespace csx::app {

// A time to train that never ends (seconds): nothing fits, or a rule refuses the cluster.
inline constexpr double kNever = std::numeric_limits<double>::infinity();

// One evaluated cluster: the chosen candidate of the training pass, or why there is none.
// `chosen` points into its own `result`, so an Evaluation moves but is never copied.
struct Evaluation : MoveOnly {
  PointKey key;
  std::int64_t steps = 0;            // training steps (from the overrides' token budget)
  std::int64_t tokens_per_step = 0;  // batch_size x seq_len
  // Time to train (seconds) and its 80 % interval; infinite when nothing fits or a rule refuses.
  search::TimeToTrain time{kNever, kNever, kNever};
  const search::CandidateResult* chosen = nullptr;  // into result.outcome.rows
  std::string why_not;                              // a rule's refusal or why nothing fits
  bool refused = false;  // a rule refuses this cluster (e.g. MBS above the per-system batch)
  PassResult result;
};

// What plan's cluster search takes. Each setup's token budget (Overrides::tokens) sets the training
// steps.
struct ClusterSearch {
  io::Scenario scenario;
  std::vector<PlatformSetup> setups;  // the platforms, in the order given
  std::vector<std::int64_t> batches;  // global batch sizes (samples), ascending, each once
  // Seconds; with it, the smallest num_csx meeting it is searched per platform and batch.
  std::optional<double> deadline_s;
  std::optional<std::int64_t> max_num_csx;  // the deadline search's largest size
  std::vector<std::int64_t> clusters;       // without a deadline: the sizes, ascending, each once
  int simulation_processes = 0;             // 0: one per available CPU
  std::string data_dir;                     // platforms/ (docs/cli.md#data-folder)
};

// The first pair of evaluated sizes of one platform and batch where more systems took longer
// (`faster` is the fastest size below `slower`), and which sizes the search evaluated: the
// doubling sizes up to `last_doubling_miss`, then (when scanned_to > last_doubling_miss) every
// size up to `scanned_to` or one ruled out by a smaller one of the same per-system batch.
struct NonMonotony {
  const Evaluation* faster = nullptr;
  const Evaluation* slower = nullptr;
  std::int64_t last_doubling_miss = 0;
  std::int64_t scanned_to = 0;
};

// The answer for one platform and batch (with a deadline) or one cluster (without).
struct PlanAnswer {
  std::string label;  // the platform's
  std::int64_t batch_size = 0;
  // With a deadline: the smallest size meeting it (null when none does); without: the cluster's.
  const Evaluation* evaluation = nullptr;
  // With a deadline: num_csx - 1's evaluation (null for num_csx 1) when one meets it; the
  // fastest evaluated one (null when none runs) when none does.
  const Evaluation* other = nullptr;
  std::int64_t limit = 0;                   // with a deadline: the largest size searched
  std::string limit_reason;                 // what set `limit` ("--max-num-csx", ...)
  std::optional<NonMonotony> non_monotony;  // with a deadline, when the search saw one
};

// Its answers and `best` point into `evaluations` (a map's nodes stay put when it moves), so a
// PlanResult moves but is never copied.
struct PlanResult : MoveOnly {
  std::map<PointKey, Evaluation> evaluations;  // every cluster evaluated
  SweepTable rows;                             // their CSV rows
  std::vector<PlanAnswer> answers;             // per platform, per batch (per cluster)
  // The smallest cluster meeting the deadline (ties: the faster), or the fastest cluster; null
  // when none meets it or nothing fits.
  const Evaluation* best = nullptr;
};

// Smallest num_csx in [1, limit] (limit: the platform's largest cluster, the batch, and
// max_num_csx) whose time to train is within the deadline: doubling from 1 to the first size
// that meets it (or that a rule refuses), then every size between the last miss and it, in
// ascending order, until one meets the deadline. Under `auto` the time to train is not
// monotone in num_csx (the per-system batch, and with it the micro-batch size, changes with
// every size), so bisecting there could skip the answer; only the sizes below the last doubling
// miss are taken to miss without being evaluated (docs/questions.md#questions-csxsim-answers). In
// the scan, sizes with the per-system batch P = ceil(B / N) of a smaller size that misses are ruled
// out when it misses by more than auto's threshold: they run the same work on the fullest
// system (same candidates, same memory) over a SwarmX tree at least as deep, so each candidate
// takes at least as long, and auto's choice is within (1 + auto_min_speedup) of the fastest
// candidate. Rules refuse sizes from some size on (e.g. B < N), so that edge is found by
// bisection. Throws RuleError when a rule refuses every cluster considered, InputError for bad
// input (make_job's), std::runtime_error when a simulation process fails (run_job's).
[[nodiscard]] PlanResult plan_clusters(const ClusterSearch& request);

}  // namespace csx::app
