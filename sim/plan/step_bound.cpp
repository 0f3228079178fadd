// Busy time of each resource, and the bound.
#include "plan/step_bound.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "plan/step_schedule.hpp"
#include "plan/swarmx_tree.hpp"

namespace csx::plan {
namespace {

// Bytes one step moves over every link of the path, each way: weights down (every pass of
// every microbatch) and gradients up. Every link carries all of them (broadcast and reduce).
struct StepTraffic {
  double weight_bytes = 0;
  double gradient_bytes = 0;
};

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

}  // namespace

std::vector<ResourceBusy> resource_busy(const SimulationResult& r) {
  std::vector<ResourceBusy> out{{"compute", r.compute_time_s}, {"CS-X I/O", r.csx_io_busy_s}};
  for (std::size_t l = 0; l < r.swarmx_level_busy_s.size(); ++l)
    out.push_back({fmt::format("SwarmX level {}", l + 1), r.swarmx_level_busy_s[l]});
  out.push_back({"MemoryX link", r.memoryx_link_busy_s});
  out.push_back({"optimizer", r.optimizer_time_s});
  if (r.step_overhead_s > 0) out.push_back({"step overhead", r.step_overhead_s});
  if (r.input_busy_s > 0) out.push_back({"input", r.input_busy_s});
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

void finish(const SimulationInput& input, SimulationResult& r, bool record_trace) {
  const auto& p = input.platform;
  if (input.pass == model::Pass::kTrain) {
    r.step_overhead_s = p.step_overhead_s;
    r.step_time_s += p.step_overhead_s;
    // The appliance client handles each training step in at least client_step_floor_s, so no
    // training step is shorter; the difference counts as the step's fixed cost.
    if (r.step_time_s < p.client_step_floor_s) {
      r.step_overhead_s += p.client_step_floor_s - r.step_time_s;
      r.step_time_s = p.client_step_floor_s;
    }
    if (record_trace && r.step_overhead_s > 0)
      for (std::size_t s = 0; s < r.step_end_s.size(); ++s)
        r.trace.push_back({"step overhead",
                           fmt::format("step {} fixed cost (added)", s),
                           "overhead",
                           r.step_end_s[s],
                           r.step_end_s[s] + r.step_overhead_s,
                           {{"step", static_cast<std::int64_t>(s)}},
                           false});
  }
  const auto depth = build_swarmx_tree(input.plan.split.num_csx, p.swarmx_fanout).depth;
  double slowest = std::min(
      {p.memoryx_link_Bps(), p.io_bandwidth_Bps(), p.fabric_bandwidth_Bps, p.sram_bandwidth_Bps});
  if (depth > 1) slowest = std::min(slowest, p.swarmx_edge_Bps());
  const auto t = step_traffic(input);
  r.weight_stream_time_s = t.weight_bytes / slowest;
  r.grad_reduce_time_s = t.gradient_bytes / slowest;
  // Every link carries all the bytes; the wafer's own fabric and SRAM (PB/s) never bound.
  const double bytes = std::max(t.weight_bytes, t.gradient_bytes);
  r.csx_io_busy_s = bytes / p.io_bandwidth_Bps();
  r.swarmx_level_busy_s.assign(static_cast<std::size_t>(std::max(0, depth - 1)),
                               bytes / p.swarmx_edge_Bps());
  r.memoryx_link_busy_s = bytes / p.memoryx_link_Bps();
  const bool simulated_input = input.input_samples_per_s > 0;
  if (simulated_input)
    r.input_busy_s =
        static_cast<double>(input.plan.split.per_system_batch_size) / input.input_samples_per_s;
  // The input overlaps everything, the step's fixed cost too: it bounds the step only when the
  // step lasts as long as it (within 1 %), not merely when it is the busiest resource.
  auto busy = resource_busy(r);
  if (simulated_input && r.input_busy_s < 0.99 * r.step_time_s) busy.pop_back();
  r.bound = bound_of(busy);
}

double step_time_lower_bound_s(const SimulationInput& input) {
  const StepSchedule schedule(input);
  const auto& p = input.platform;
  const std::int64_t k = schedule.num_microbatches();
  const std::int64_t per_microbatch = schedule.weight_transfers_per_step() / k;
  double busy = 0;
  for (std::int64_t j = 0; j < k; ++j) {
    const std::int64_t samples = schedule.microbatch_samples(0, j);  // system 0 is the fullest
    if (p.microbatch_overhead_s > 0) busy += p.microbatch_overhead_s;
    for (std::int64_t i = 0; i < per_microbatch; ++i) {
      const auto w = schedule.weight_transfer(j * per_microbatch + i);
      busy += schedule.kernel_time_s(w.layer, samples, w.backward);
    }
  }
  if (input.pass != model::Pass::kTrain) return busy;
  return std::max(busy + p.step_overhead_s, p.client_step_floor_s);
}

}  // namespace csx::plan
