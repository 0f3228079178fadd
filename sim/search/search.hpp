// Evaluates the candidates of a resolved micro-batch-size setting (batching::resolve) and lets
// the choice rules (batching/choice_rules.hpp) pick one.
// Candidates that do not fit are reported (fits = false, with the reason) and never simulated.
// Pure code: the simulation is a callback, so this is testable without SimGrid.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "batching/resolve.hpp"
#include "model/layer_costs.hpp"
#include "model/memory_model.hpp"
#include "model/prediction_interval.hpp"
#include "plan/simulation_plan.hpp"
#include "platform/platform_spec.hpp"

namespace csx::search {

struct CandidateResult {
  std::int64_t micro_batch_size = 0;
  std::int64_t num_microbatches = 0;
  model::MemoryBreakdown memory;
  bool fits = false;
  std::string reason;      // why it does not fit; empty when it fits
  bool simulated = false;  // fits implies simulated, unless SearchRequest::chosen_only left it out
  plan::SimulationResult sim;
  double samples_per_s = 0;
  double tokens_per_s = 0;
  double mfu = 0;                      // model FLOPs (no recompute) / (step time x num_csx x peak)
  model::PredictionInterval interval;  // 80 % interval of step time and samples/s (simulated)
  bool chosen = false;
};

struct SearchRequest {
  batching::Resolution resolution;  // the setting resolved by batching::resolve, once
  batching::BatchSplit split;
  batching::ModelTraits traits;
  model::ModelCosts costs;
  platform::PlatformSpec platform;
  model::Pass pass = model::Pass::kTrain;
  std::int64_t seq_len = 0;
  std::int64_t simulated_steps = 2;
  bool record_trace = false;  // the chosen row comes from a simulation recording its timeline
  // A trace surely above this many events is not simulated (0: no bound); see SearchOutcome.
  std::int64_t trace_max_events = 0;
  std::int64_t traced_systems = 1;  // the systems a trace shows, each with its own events
  double auto_min_speedup = 0.03;   // batching::choose
  model::IntervalBasis interval;    // of every simulated row's prediction interval
  double input_samples_per_s = 0;   // per CS-X; 0: the input is not simulated
  // Only the chosen row is wanted (`validate`'s measured runs, the calibration fit): a fitting
  // candidate whose step cannot be shorter than the fastest simulated one's (nor, under auto,
  // more than auto_min_speedup faster than the per-system batch's), by
  // plan::step_time_lower_bound_s, is not simulated (fits, simulated false). The same candidate
  // is chosen as without it (its step may differ in the last bits: engine::simulate_all); the
  // decision's text sees the simulated rows only. Off when the input is simulated.
  bool chosen_only = false;
};

struct SearchOutcome {
  std::vector<CandidateResult> rows;  // descending MBS
  std::optional<std::size_t> chosen;  // index into rows; empty when nothing fits
  std::string decision;               // how the choice was made
  int simulations = 0;
  // With record_trace: a lower bound of the chosen candidate's trace events when it exceeds
  // trace_max_events, and then its timeline was not simulated; 0 otherwise.
  std::int64_t trace_events_at_least = 0;
};

// Simulates a batch of plans, recording their timelines when asked (the caller decides how:
// which systems a trace shows); results in input order.
using Simulator = std::function<std::vector<plan::SimulationResult>(
    const std::vector<plan::SimulationInput>& inputs, bool record_trace)>;

// The micro-batch sizes run_search evaluates (and writes a row for), descending: the
// resolution's candidates and, under auto, its extra candidate (batching::auto_extra_candidate).
// Pure; no simulation.
[[nodiscard]] std::vector<std::int64_t> candidate_sizes(const SearchRequest& request);

// When no candidate fits (on-chip memory, or MemoryX cannot hold the model: every row then
// gives that reason), returns an outcome without a chosen row (the caller reports it and
// exits 1).
[[nodiscard]] SearchOutcome run_search(const SearchRequest& request, const Simulator& simulate);

// Model FLOP per step for MFU: 3 x forward (train) or forward (eval), times the global batch.
[[nodiscard]] double model_flops_per_step(const model::ModelCosts& costs, model::Pass pass,
                                          std::int64_t batch_size);

}  // namespace csx::search
