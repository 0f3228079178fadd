// Public interface of the SimGrid engine. This header does not include SimGrid: callers hand
// over a plan and how to run it, and get timings back. Each simulation runs in its own forked
// process, because SimGrid's clock and platform are process-wide
// (docs/model.md#execution-model-weight-streaming).
#pragma once

#include <cstdint>
#include <vector>

#include "plan/simulation_plan.hpp"

namespace csx::engine {

using plan::SimulationInput;
using plan::SimulationResult;
using plan::TraceEvent;

// Systems shown one track each in a trace; beyond, the fullest one (system 0) and those picked
// (Options::shown_systems).
inline constexpr std::int64_t kTracedSystems = 64;

// How the engine runs a plan. The three reductions are exact (engine/exact_reductions.hpp says
// why); each may be turned off to check it against the full simulation.
struct Options {
  // Simulate one system per SwarmX level (the fullest) instead of all N.
  bool representative = true;
  // Simulate at most kKeptPerGroup of each run of identical microbatches (representative runs).
  bool collapse_microbatches = true;
  // Training, representative runs: simulate one step and repeat it, when that is exact.
  bool reduce_steps = true;
  // Record the timeline (engine/trace_recorder.hpp) into SimulationResult::trace; turns off
  // the microbatch and step reductions (a trace shows every microbatch of every step).
  bool record_trace = false;
  // Representative runs: systems simulated besides system 0 (indices < num_csx), each with its
  // own path through the SwarmX tree. Exact as the representative run is when each picked
  // system is the fullest among its siblings (an engine test checks such a case); otherwise a
  // pruned fuller sibling's gradients may be missing from the picked system's reduce.
  std::vector<std::int64_t> shown_systems;
};

// One plan and how to run it.
struct Run {
  SimulationInput input;
  Options options;
};

// Simulates input.simulated_steps (>= 2) steps of each plan, the last one reported. Plans run
// in forked processes: per cluster shape, a process builds the engine and forks two children,
// which share the plans (plan i goes to child i mod 2) and simulate theirs one after
// another; `processes` caps the children running at once (0: one per available CPU). The
// sharing does not depend on `processes`, so neither do the results (a plan simulated with
// other plans may differ from one simulated alone in the last bits: the engine's clock goes on).
// Results are in input order, each finished (plan::finish): a training step's fixed cost
// added, the busy times and the bound set.
// Throws std::invalid_argument for fewer than two steps, std::runtime_error when a simulation
// process fails (an internal error).
[[nodiscard]] std::vector<SimulationResult> simulate_all(const std::vector<Run>& runs,
                                                         int processes = 0);
// The same, every plan run with `options`.
[[nodiscard]] std::vector<SimulationResult> simulate_all(const std::vector<SimulationInput>& inputs,
                                                         const Options& options = {},
                                                         int processes = 0);
[[nodiscard]] SimulationResult simulate(const SimulationInput& input, const Options& options = {});

// CPUs this process may run on (at least 1).
[[nodiscard]] int available_cpus();

}  // namespace csx::engine
