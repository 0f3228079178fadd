// What bounds a step: the busy time of each resource a step uses (the fullest system's kernels,
// each link of the MemoryX -> SwarmX -> CS-X path, the optimizer) and the busiest of them. Pure
// code, computed once per simulated plan (engine::simulate_all) on the final result.
#pragma once

#include <string>
#include <vector>

#include "plan/simulation_plan.hpp"

namespace csx::plan {

// One resource and its busy seconds in a step.
struct ResourceBusy {
  std::string name;  // "compute", "CS-X I/O", "SwarmX level L", "MemoryX link", "optimizer",
                     // "step overhead", "input"
  double busy_s = 0;
};
// From a finished result, in a fixed order: compute, CS-X I/O, SwarmX levels 1.., MemoryX
// link, optimizer, the step's fixed cost when it has one (a barrier nothing overlaps but the
// input workers; docs/model.md#compute-model), and the input workers when they are simulated
// (docs/model.md#input-pipeline).
[[nodiscard]] std::vector<ResourceBusy> resource_busy(const SimulationResult& r);

// The busiest resource's name; those within 1 % of it are joined with " = " (the stock
// platforms give the three links the same bandwidth).
[[nodiscard]] std::string bound_of(const std::vector<ResourceBusy>& busy);

// Finishes a simulated result, the one place that does (engine::simulate_all calls it once per
// simulated plan): a training step's fixed cost (platform step_overhead_s, seconds,
// docs/model.md#compute-model), a barrier nothing overlaps but the input workers
// (engine::input_workers credit it), added to the step time; then a step shorter than the
// platform's client_step_floor_s (seconds) lengthened to it, the wait added to
// r.step_overhead_s (the workers are not credited with it); with `record_trace` an event after
// each step; the streaming and reduce busy times (slowest link),
// each link's busy time (bytes / bandwidth for its busier direction: links are split duplex,
// docs/model.md#execution-model-weight-streaming; SwarmX levels exist between SwarmX nodes, num_csx
// > fanout); and the bound (the input only when the step lasts as long as the input takes).
void finish(const SimulationInput& input, SimulationResult& r, bool record_trace);

// A lower bound of the step time (seconds) that engine::simulate_all reports for `input`, without
// simulating it: one step's kernels and fixed microbatch costs on the fullest system, back to
// back (a system runs them one after another, and no weights of a step leave MemoryX before the
// previous step's update is done: docs/model.md#execution-model-weight-streaming), then, when
// training, the step's fixed cost and the client's floor as finish() adds them. Streaming,
// gradients and the update only lengthen a step. search::run_search uses it to leave out
// candidates that cannot be chosen. Throws what StepSchedule's constructor throws.
[[nodiscard]] double step_time_lower_bound_s(const SimulationInput& input);

}  // namespace csx::plan
