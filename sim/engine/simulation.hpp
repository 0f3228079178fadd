// Public interface of the SimGrid engine. This header does not include SimGrid: callers hand
// over a plan and get timings back. Each simulation runs in its own forked process, because
// SimGrid's clock and platform are process-wide (DESIGN.md section 6).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "batching/step_plan.hpp"
#include "model/layer_costs.hpp"
#include "model/memory_model.hpp"
#include "platform/platform_spec.hpp"

namespace csx::engine {

struct SimulationInput {
  model::ModelCosts costs;
  platform::PlatformSpec platform;
  batching::StepPlan plan;
  model::Pass pass = model::Pass::kTrain;
  std::int64_t seq_len = 0;         // tokens per sample
  std::int64_t simulated_steps = 2;  // >= 2; the last one is reported
  bool record_trace = false;
  // Simulate one system per SwarmX level (the fullest) instead of all N: exact, because every
  // system sees identical links and the others hold the same or fewer samples (tested against
  // the full simulation). Off: all N systems and the whole tree.
  bool representative = true;
  // Collapse runs of identical microbatches (representative runs only): simulate at most 5 of
  // each size, check that the last ones repeat with a constant period, and add the period for
  // the rest. Exact for the periodic steady state (tested against the full run); falls back to
  // the full run when the period does not settle.
  bool collapse_microbatches = true;
  // Internal: microbatch sizes of system 0 as (size, count), replacing the plan's. Set by the
  // collapse; empty means the plan's balanced sizes.
  std::vector<std::pair<std::int64_t, std::int64_t>> microbatch_groups;
};

// One interval on a timeline track (Chrome trace-event "complete" event).
struct TraceEvent {
  std::string track;  // "csx-0", "memoryx", "swarmx", "steps"
  std::string name;   // "fwd block.3 mb 0", "stream embedding", "optimizer head", ...
  std::string category;
  double start_s = 0;
  double end_s = 0;
};

struct SimulationResult {
  double step_time_s = 0;            // steady state: duration of the last simulated step
  double compute_time_s = 0;         // kernel time of the fullest system in that step
  double weight_stream_time_s = 0;   // busy time of the slowest link carrying weights, that step
  double exposed_stream_time_s = 0;  // the fullest system idle, waiting for weights (this
                                     // includes the wait for the update at the step boundary)
  double grad_reduce_time_s = 0;     // busy time of the slowest link carrying gradients
  double optimizer_time_s = 0;       // optimizer work of one step at the MemoryX rate
  double end_time_s = 0;             // simulated time at the end of the last step
  std::vector<double> step_end_s;    // simulated time at the end of each step
  std::string bound;                 // compute | weight streaming | gradient reduce | optimizer
  std::uint64_t activities = 0;      // executions and communications issued
  // System 0 in the last step, per microbatch: start time, seconds waiting for weights, kernel
  // seconds.
  std::vector<double> microbatch_start_s, microbatch_wait_s, microbatch_compute_s;
  std::vector<TraceEvent> trace;     // when record_trace
};

// Simulates input.simulated_steps steps of each plan, in forked child processes: one per
// group of inputs that share a cluster (platform, num_csx, representative), which run one after
// another on one SimGrid engine. Results are in input order.
// Throws std::runtime_error when a child fails (an internal error).
[[nodiscard]] std::vector<SimulationResult> simulate_all(const std::vector<SimulationInput>& inputs);
[[nodiscard]] SimulationResult simulate(const SimulationInput& input);

// The same in this process, without collapsing microbatches; every input must share the first
// one's cluster. SimGrid allows one engine per process: call this once (simulate_all's child).
[[nodiscard]] std::vector<SimulationResult> simulate_in_process(
    const std::vector<SimulationInput>& inputs);

// Busy seconds of the slowest link for one step's weights and gradients (bytes / bandwidth).
struct LinkBusy {
  double weights_s = 0;
  double gradients_s = 0;
};
[[nodiscard]] LinkBusy link_busy_times(const SimulationInput& input);

// The largest of compute, weight streaming, gradient reduce and optimizer busy times.
[[nodiscard]] std::string bound_of(const SimulationResult& r);

}  // namespace csx::engine
