// Link busy times and the bound.
#include "plan/step_bound.hpp"

#include <algorithm>

#include "plan/step_schedule.hpp"
#include "plan/swarmx_tree.hpp"

namespace csx::plan {

std::string bound_of(const SimulationResult& r) {
  const std::pair<double, const char*> parts[] = {{r.compute_time_s, "compute"},
                                                  {r.weight_stream_time_s, "weight streaming"},
                                                  {r.grad_reduce_time_s, "gradient reduce"},
                                                  {r.optimizer_time_s, "optimizer"}};
  const auto* best = &parts[0];
  for (const auto& p : parts)
    if (p.first > best->first) best = &p;
  return best->second;
}

LinkBusy link_busy_times(const SimulationInput& input) {
  // Streaming and reduction keep the slowest link of the MemoryX-to-wafer path busy for
  // bytes / bandwidth; both directions have the same links (split duplex).
  const auto& p = input.platform;
  double slowest = std::min({p.memoryx_bandwidth_Bps, p.io_bandwidth_Bps(), p.fabric_bandwidth_Bps,
                             p.sram_bandwidth_Bps});
  if (build_swarmx_tree(input.plan.split.num_csx, p.swarmx_fanout).depth > 1)
    slowest = std::min(slowest, static_cast<double>(p.io_ports) * p.swarmx_link_bandwidth_Bps);
  const StepSchedule schedule(input);
  double forward = 0, backward = 0, grads = 0;  // bytes of one pass over every layer
  for (std::int64_t layer = 0; layer < schedule.num_layers(); ++layer) {
    const auto chunks = static_cast<double>(schedule.chunks(layer));
    forward += chunks * static_cast<double>(schedule.weight_chunk_bytes(layer, false));
    backward += chunks * static_cast<double>(schedule.weight_chunk_bytes(layer, true));
    grads += chunks * static_cast<double>(schedule.grad_chunk_bytes(layer));
  }
  const double k = static_cast<double>(schedule.num_microbatches());
  const double grad_passes = static_cast<double>(schedule.grad_transfers_per_step()) /
                             static_cast<double>(std::max<std::int64_t>(1, schedule.num_layers()));
  return {(forward + (schedule.train() ? backward : 0.0)) * k / slowest,
          grads * grad_passes / slowest};
}

void summarize(const SimulationInput& input, SimulationResult& r) {
  const auto busy = link_busy_times(input);
  r.weight_stream_time_s = busy.weights_s;
  r.grad_reduce_time_s = busy.gradients_s;
  r.bound = bound_of(r);
}

}  // namespace csx::plan
