// Busy time of each resource, and the bound.
#include "plan/step_bound.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "plan/step_schedule.hpp"
#include "plan/swarmx_tree.hpp"

namespace csx::plan {

StepTraffic step_traffic(const SimulationInput& input) {
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
  return {(forward + (schedule.train() ? backward : 0.0)) * k, grads * grad_passes};
}

std::vector<ResourceBusy> resource_busy(const SimulationInput& input, const SimulationResult& r) {
  const auto& p = input.platform;
  const auto t = step_traffic(input);
  const double bytes = std::max(t.weight_bytes, t.gradient_bytes);
  std::vector<ResourceBusy> out{{"compute", r.compute_time_s}};
  // The wafer's own fabric and SRAM links are PB/s and never the bound; the CS-X I/O is.
  out.push_back({"CS-X I/O", bytes / p.io_bandwidth_Bps()});
  const auto depth = build_swarmx_tree(input.plan.split.num_csx, p.swarmx_fanout).depth;
  const double edge_Bps = p.swarmx_edge_Bps();
  for (int level = 1; level < depth; ++level)
    out.push_back({fmt::format("SwarmX level {}", level), bytes / edge_Bps});
  out.push_back({"MemoryX link", bytes / p.memoryx_link_Bps()});
  out.push_back({"optimizer", r.optimizer_time_s});
  return out;
}

std::string bound_of(const std::vector<ResourceBusy>& busy) {
  double most = 0;
  for (const auto& b : busy) most = std::max(most, b.busy_s);
  std::string name;
  for (const auto& b : busy)
    if (b.busy_s >= 0.99 * most) name += (name.empty() ? "" : " = ") + b.name;
  return name;
}

void summarize(const SimulationInput& input, SimulationResult& r) {
  const auto& p = input.platform;
  double slowest = std::min({p.memoryx_link_Bps(), p.io_bandwidth_Bps(), p.fabric_bandwidth_Bps,
                             p.sram_bandwidth_Bps});
  if (build_swarmx_tree(input.plan.split.num_csx, p.swarmx_fanout).depth > 1)
    slowest = std::min(slowest, p.swarmx_edge_Bps());
  const auto t = step_traffic(input);
  r.weight_stream_time_s = t.weight_bytes / slowest;
  r.grad_reduce_time_s = t.gradient_bytes / slowest;
  const auto busy = resource_busy(input, r);
  r.swarmx_level_busy_s.clear();
  for (const auto& b : busy) {
    if (b.name == "CS-X I/O") r.csx_io_busy_s = b.busy_s;
    if (b.name == "MemoryX link") r.memoryx_link_busy_s = b.busy_s;
    if (b.name.rfind("SwarmX", 0) == 0) r.swarmx_level_busy_s.push_back(b.busy_s);
  }
  r.bound = bound_of(busy);
}

}  // namespace csx::plan
