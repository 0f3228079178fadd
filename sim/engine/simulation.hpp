// Public interface of the SimGrid engine. This header does not include SimGrid: callers hand
// over a plan and get timings back. Each simulation runs in its own forked process, because
// SimGrid's clock and platform are process-wide (docs/model.md#execution-model-weight-streaming).
#pragma once

#include <vector>

#include "plan/simulation_plan.hpp"

namespace csx::engine {

using plan::SimulationInput;
using plan::SimulationResult;
using plan::TraceEvent;

// Simulates input.simulated_steps (>= 2) steps of each plan, the last one reported. Plans run
// in forked processes: per cluster shape, a process builds the engine and forks two children,
// which share the plans (plan i goes to child i mod 2) and simulate theirs one after
// another; `processes` caps the children running at once (0: one per available CPU). The
// sharing does not depend on `processes`, so neither do the results (a plan simulated with
// other plans may differ from one simulated alone in the last bits: the engine's clock goes on).
// Results are in input order.
// Throws std::invalid_argument for fewer than two steps, std::runtime_error when a simulation
// process fails (an internal error).
[[nodiscard]] std::vector<SimulationResult> simulate_all(const std::vector<SimulationInput>& inputs,
                                                         int processes = 0);
[[nodiscard]] SimulationResult simulate(const SimulationInput& input);

// CPUs this process may run on (at least 1).
[[nodiscard]] int available_cpus();

}  // namespace csx::engine
