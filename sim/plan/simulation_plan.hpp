// The plan a simulation takes and the timings it returns: plain data, no SimGrid, so the
// search and the reports depend on these types and never on the engine. How the engine runs a
// plan (its exact reductions, the trace) is not plan data: engine::Options.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "batching/step_plan.hpp"
#include "model/layer_costs.hpp"
#include "model/memory_model.hpp"
#include "platform/platform_spec.hpp"

namespace csx::plan {

struct SimulationInput {
  model::ModelCosts costs;
  platform::PlatformSpec platform;
  batching::StepPlan plan;
  model::Pass pass = model::Pass::kTrain;
  std::int64_t seq_len = 0;          // tokens per sample
  std::int64_t simulated_steps = 2;  // >= 2; the last one is reported
  double recompute_passes = 0;       // forward passes of each trained block redone in backward
  // The candidate's on-chip memory (traces: the SRAM counter).
  model::MemoryBreakdown memory;
  // Samples per second the input workers of one CS-X deliver (docs/model.md#input-pipeline);
  // 0: the input is not simulated (never a bound).
  double input_samples_per_s = 0;
};

// A trace event's argument: a count, a quantity, or a name.
using TraceArg = std::variant<std::int64_t, double, std::string>;
using TraceArgs = std::vector<std::pair<std::string, TraceArg>>;

// One interval on a timeline track (Chrome trace-event "complete" event), or one sample of a
// counter (ph "C": `track` names the counter, `start_s` is the time, `args` hold the values).
struct TraceEvent {
  std::string track;  // "csx-0", "memoryx stream", "swarmx level 1 broadcast", "steps", ...
  std::string name;   // "fwd block.3 mb 0", "stream embedding fwd mb 0", ...
  std::string category;
  double start_s = 0;
  double end_s = 0;
  TraceArgs args;  // e.g. bytes, FLOPs, microbatch, layer, system (units in the key names)
  bool counter = false;
};

struct SimulationResult {
  // Steady state: duration of the last simulated step, seconds; for training it includes
  // step_overhead_s (added by plan::finish).
  double step_time_s = 0;
  double compute_time_s = 0;         // kernel time of the fullest system in that step
  double weight_stream_time_s = 0;   // busy time of the slowest link carrying weights, that step
  double exposed_stream_time_s = 0;  // the fullest system idle, waiting for weights (this
                                     // includes the wait for the update at the step boundary)
  double grad_reduce_time_s = 0;     // busy time of the slowest link carrying gradients
  double optimizer_time_s = 0;       // optimizer work of one step at the MemoryX rate
  double step_overhead_s = 0;        // fixed cost + client-floor wait, s (training; plan::finish)
  double end_time_s = 0;             // simulated time at the end of the last step
  std::vector<double> step_end_s;    // simulated time at the end of each step
  // Busy seconds of each resource in the step (plan/step_bound): the kernels of the fullest
  // system, and each link of the weight path for its busier direction (weights down, gradients
  // up), and the optimizer. Set in the parent after the simulation.
  double csx_io_busy_s = 0;  // a CS-X's external I/O (PlatformSpec::io_bandwidth_Bps)
  std::vector<double> swarmx_level_busy_s;  // the link from a level-L SwarmX node to its parent
  double memoryx_link_busy_s = 0;           // MemoryX to the SwarmX root
  // The input workers of the fullest system: its per-system batch / input_samples_per_s, and
  // the seconds system 0 waited for its input in the step (0 when the input is not simulated).
  double input_busy_s = 0;
  double input_wait_s = 0;
  // The resource with the most busy time: "compute", "CS-X I/O", "SwarmX level L",
  // "MemoryX link", "optimizer", "step overhead" or "input"; resources within 1 % of it are joined
  // with " = " (plan::bound_of, set by plan::finish).
  std::string bound;
  std::uint64_t activities = 0;  // executions and communications issued
  // System 0 in the last step, per microbatch: start and end time (the end includes waiting for
  // the gradient buffer), seconds waiting for weights, kernel seconds.
  std::vector<double> microbatch_start_s, microbatch_end_s, microbatch_wait_s, microbatch_compute_s;
  // System 0 in the last step: seconds it waited for the first layer's weights once its first
  // microbatch's overhead was done.
  double first_weights_wait_s = 0;
  std::vector<TraceEvent> trace;  // when record_trace
};

}  // namespace csx::plan
