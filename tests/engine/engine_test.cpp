// The SimGrid engine against hand calculations on synthetic models and platforms.
#include <gtest/gtest.h>

#include <cmath>

#include "batching/batch_split.hpp"
#include "batching/step_plan.hpp"
#include "engine/simulation.hpp"
#include "model/layer_costs.hpp"
#include "plan/step_bound.hpp"
#include "plan/step_schedule.hpp"
#include "plan/swarmx_tree.hpp"
#include "platform/platform_spec.hpp"
#include "test_models.hpp"

using namespace csx;
using test::rel;
using test::uniform_model;

namespace {

// Engine options: representative or all systems, collapsed microbatches or not.
engine::Options options(bool representative, bool collapse) {
  engine::Options o;
  o.representative = representative;
  o.collapse_microbatches = collapse;
  return o;
}

// A traced run: all systems, or representative with picked systems.
engine::Options traced(bool representative, std::vector<std::int64_t> shown) {
  engine::Options o;
  o.representative = representative;
  o.record_trace = true;
  o.shown_systems = std::move(shown);
  return o;
}

constexpr double kHuge = 1e30;

// A platform with every rate and bandwidth infinite and no overheads; tests switch one on.
platform::PlatformSpec ideal_platform() {
  platform::PlatformSpec p;
  p.name = "ideal";
  p.cores = 1;
  p.sram_bytes = kHuge;
  p.sram_bandwidth_Bps = kHuge;
  p.fabric_bandwidth_Bps = kHuge;
  p.peak_flops = kHuge;
  p.io_ports = 1;
  p.io_port_bandwidth_Bps = kHuge;
  p.max_cluster_size = 4096;
  p.swarmx_fanout = 4;
  p.swarmx_link_bandwidth_Bps = kHuge;
  p.memoryx_capacity_bytes = kHuge;
  p.memoryx_bytes_per_parameter = 16;
  p.memoryx_bandwidth_Bps = kHuge;
  p.optimizer_rate_params_per_s = kHuge;
  p.swarmx_hop_latency_s = 0;
  p.swarmx_chunk_bytes = kHuge;
  p.compute_efficiency = 1;
  p.fabric_rows = 1;  // with whole token counts, every SIMD lane is full
  p.simd_width = 1;
  p.dispatch_overhead_cycles = 0;
  p.step_overhead_s = 0;
  p.kernel_overhead_s = 0;
  p.microbatch_overhead_s = 0;
  p.usable_sram_fraction = 1;
  p.workspace_bytes = 0;
  p.weight_buffers = 2;
  p.store_all_activations = true;
  return p;
}

// Finite rates and bandwidths of CS-2's order, with chunked SwarmX transfers.
platform::PlatformSpec cs2_like_platform() {
  auto p = ideal_platform();
  p.peak_flops = 1e15;
  p.compute_efficiency = 0.4;
  p.fabric_rows = 996;
  p.simd_width = 4;
  p.dispatch_overhead_cycles = 2;
  p.kernel_overhead_s = 2e-4;
  p.microbatch_overhead_s = 1e-3;
  p.memoryx_bandwidth_Bps = 150e9;
  p.io_ports = 12;
  p.io_port_bandwidth_Bps = 12.5e9;
  p.swarmx_link_bandwidth_Bps = 12.5e9;
  p.swarmx_hop_latency_s = 5e-6;
  p.swarmx_chunk_bytes = 1e8;
  p.optimizer_rate_params_per_s = 1e10;
  return p;
}

// Infinite I/O and fabric, finite compute: each kernel is f * samples / (peak * eff * fill) +
// overhead with x = 8000 tokens / (1000 rows * 4 lanes) = 2, fill = 2 / (2 + 2) = 0.5.
platform::PlatformSpec summed_compute_platform() {
  auto p = ideal_platform();
  p.peak_flops = 1e15;
  p.compute_efficiency = 0.5;
  p.fabric_rows = 1000;
  p.simd_width = 4;
  p.dispatch_overhead_cycles = 2;
  p.step_overhead_s = 0.05;  // not simulated: added after
  p.kernel_overhead_s = 1e-4;
  p.microbatch_overhead_s = 2e-3;
  return p;
}

// The summed kernel times of a step on summed_compute_platform(): L layers of f FLOP a sample,
// 3 microbatches of 8 samples, each with its 2 ms overhead.
double summed_compute_s(int L, double f) {
  const double eff = 0.5 * 0.5;
  const double fwd = f * 8 / (1e15 * eff) + 1e-4, bwd = 2 * f * 8 / (1e15 * eff) + 1e-4;
  return 3 * (2e-3 + L * (fwd + bwd));
}

engine::SimulationInput input_for(const model::ModelCosts& c, const platform::PlatformSpec& p,
                                  std::int64_t B, std::int64_t N, std::int64_t mbs,
                                  model::Pass pass = model::Pass::kTrain) {
  engine::SimulationInput in;
  in.costs = c;
  in.platform = p;
  in.plan = batching::make_plan(batching::split_batch(B, N), mbs);
  in.pass = pass;
  in.seq_len = 1000;
  in.simulated_steps = 3;
  return in;
}

}  // namespace

// Infinite I/O and fabric: the simulated step is the fullest system's summed kernel times plus
// the training step's fixed cost (added once the simulation is done, plan::finish; not in the
// compute time).
TEST(Engine, InfiniteIoStepIsSummedCompute) {
  const int L = 5;
  const double f = 3e9;
  const auto in =
      input_for(uniform_model(L, 1e8, f), summed_compute_platform(), 24, 1, 8);  // k = 3 of 8
  const auto r = engine::simulate(in);
  const double expected = summed_compute_s(L, f);
  EXPECT_LT(rel(r.step_time_s, expected + 0.05), 1e-9) << r.step_time_s << " vs " << expected;
  EXPECT_LT(rel(r.compute_time_s, expected), 1e-9);
  EXPECT_EQ(r.step_overhead_s, 0.05);
  EXPECT_EQ(r.bound, "step overhead");  // 0.05 s over the 0.0133 s of compute
}

// The client's step floor (platform client_step_floor_s): a training step shorter than it lasts
// the floor, the wait counted as the step's fixed cost; a longer step, and an evaluation step,
// are unchanged. Same model as above: 3 x (2e-3 + 5 x (fwd + bwd)) = 0.0133 s of compute.
TEST(Engine, ClientFloorLengthensOnlyShortTrainingSteps) {
  auto p = summed_compute_platform();
  const double compute = summed_compute_s(5, 3e9);
  p.client_step_floor_s = 0.2;
  auto in = input_for(uniform_model(5, 1e8, 3e9), p, 24, 1, 8);
  const auto floored = engine::simulate(in);
  EXPECT_DOUBLE_EQ(floored.step_time_s, 0.2);
  EXPECT_LT(rel(floored.step_overhead_s, 0.2 - compute), 1e-9) << floored.step_overhead_s;
  EXPECT_EQ(floored.bound, "step overhead");
  in.platform.client_step_floor_s = 0.01;  // below the 0.0633 s step: no effect
  const auto above = engine::simulate(in);
  EXPECT_LT(rel(above.step_time_s, compute + 0.05), 1e-9);
  EXPECT_EQ(above.step_overhead_s, 0.05);
  in.platform.client_step_floor_s = 0.2;
  in.pass = model::Pass::kEval;  // evaluation steps have no fixed cost and no floor
  const auto eval = engine::simulate(in);
  EXPECT_LT(eval.step_time_s, 0.01);
  EXPECT_EQ(eval.step_overhead_s, 0);
}

// plan::step_time_lower_bound_s without a simulation: on infinite I/O it is the step, the
// hand-calculated summed compute (3 x (2e-3 + 5 x (fwd + bwd))) plus the 0.05 s fixed cost; the
// client floor raises it as it raises the step; an evaluation step has neither.
TEST(Engine, StepLowerBoundIsTheSummedComputeOnInfiniteIo) {
  auto in = input_for(uniform_model(5, 1e8, 3e9), summed_compute_platform(), 24, 1, 8);
  const double compute = summed_compute_s(5, 3e9);
  EXPECT_LT(rel(plan::step_time_lower_bound_s(in), compute + 0.05), 1e-12);
  EXPECT_LT(rel(plan::step_time_lower_bound_s(in), engine::simulate(in).step_time_s), 1e-9);
  in.platform.client_step_floor_s = 0.2;
  EXPECT_DOUBLE_EQ(plan::step_time_lower_bound_s(in), 0.2);
  in.pass = model::Pass::kEval;
  EXPECT_LT(plan::step_time_lower_bound_s(in), 0.01);
}

// Infinite compute, MemoryX link the only finite bandwidth B, hop latency lambda on the
// MemoryX link and each tree edge. MemoryX streams 2 k L layers of w bytes back to back, each
// taking lambda + w/B; the step then waits for the last gradient: the last weights reach the
// CS-X (lambda), its gradient reaches the SwarmX root (lambda) and MemoryX (lambda + w/B).
TEST(Engine, InfiniteComputeStepIsStreamingTime) {
  auto p = ideal_platform();
  const double B = 150e9, lambda = 2e-6, w = 3e8;
  p.memoryx_bandwidth_Bps = B;
  p.swarmx_hop_latency_s = lambda;
  const int L = 6;
  const std::int64_t k = 4;
  const auto in = input_for(uniform_model(L, w, 1e9), p, 8, 1, 2);  // k = 4
  ASSERT_EQ(in.plan.num_microbatches, k);
  const auto r = engine::simulate(in);
  const double expected = 2 * k * L * (lambda + w / B) + 3 * lambda + w / B;
  EXPECT_LT(rel(r.step_time_s, expected), 1e-9) << r.step_time_s << " vs " << expected;
  EXPECT_LT(rel(r.weight_stream_time_s, 2 * k * L * w / B), 1e-9);  // busy time, no latency
  EXPECT_EQ(r.bound, "MemoryX link");                               // the only finite link
}

// MemoryX's updates at the step's end, hand-calculated: infinite I/O, compute 1e15 FLOP/s, L = 4
// layers of 5e7 parameters, optimizer 1e9 parameters/s (0.05 s a layer), 2 microbatches of 2
// samples. A layer's forward takes 1e13 x 2 / 1e15 = 0.02 s, its backward 0.04 s: compute
// 2 x 4 x 0.06 = 0.48 s a step. Per layer, the last microbatch's gradients of layers 3, 2, 1, 0
// arrive 0.12, 0.08, 0.04 and 0 s before the compute ends; the updates, one at a time, start at
// max(gradient, previous update's end) and end 0.08 s after it: step 0.56 s. After all gradients
// (global-norm clipping), the four updates follow the compute: 0.48 + 4 x 0.05 = 0.68 s.
TEST(Engine, UpdatesAfterAllGradientsFollowTheCompute) {
  auto p = ideal_platform();
  p.peak_flops = 1e15;
  p.optimizer_rate_params_per_s = 1e9;
  const auto c = uniform_model(4, 1e8, 1e13);
  const auto per_layer = engine::simulate(input_for(c, p, 4, 1, 2));
  EXPECT_LT(rel(per_layer.step_time_s, 0.56), 1e-9) << per_layer.step_time_s;
  p.update_after_all_gradients = true;
  const auto after_all = engine::simulate(input_for(c, p, 4, 1, 2));
  EXPECT_LT(rel(after_all.step_time_s, 0.68), 1e-9) << after_all.step_time_s;
  EXPECT_LT(rel(after_all.optimizer_time_s, 0.2), 1e-9);
}

// Eval runs forward only: one third of training compute for the same MBS (backward = 2 x
// forward, nothing recomputed, no fixed overheads).
TEST(Engine, EvalComputeIsOneThirdOfTrain) {
  auto p = ideal_platform();
  p.peak_flops = 1e15;
  const auto c = uniform_model(4, 1e8, 5e9);
  const auto train = engine::simulate(input_for(c, p, 12, 2, 3, model::Pass::kTrain));
  const auto eval = engine::simulate(input_for(c, p, 12, 2, 3, model::Pass::kEval));
  EXPECT_LT(rel(eval.compute_time_s * 3, train.compute_time_s), 1e-12);
  EXPECT_LT(rel(eval.step_time_s * 3, train.step_time_s), 1e-9);
  EXPECT_EQ(eval.grad_reduce_time_s, 0);
}

// The input workers (docs/model.md#input-pipeline), hand-calculated. Compute as in
// UpdatesAfterAllGradientsFollowTheCompute without updates: 0.48 s a step of 4 samples in 2
// microbatches, plus a fixed cost of 0.05 s. Input at 4 samples/s: one step's batch takes 1 s,
// the workers keep one batch ahead and go on during the fixed cost, so a step lasts 1 s: in the
// simulation a batch takes 1 - 0.05 s (the fixed cost is added after), a microbatch's samples
// arrive every 0.475 s and its compute takes 0.24 s, so system 0 waits 2 x 0.235 = 0.47 s
// beyond the fixed cost; the bound is the input. At 40 samples/s (0.1 s a
// batch) the step is 0.48 + 0.05 s, as without input, and nothing waits.
TEST(Engine, InputWorkersBoundTheStepWhenSlower) {
  auto p = ideal_platform();
  p.peak_flops = 1e15;
  p.step_overhead_s = 0.05;
  const auto c = uniform_model(4, 1e8, 1e13);
  auto in = input_for(c, p, 4, 1, 2);
  in.input_samples_per_s = 4;
  const auto slow = engine::simulate(in);
  EXPECT_LT(rel(slow.step_time_s, 1.0), 1e-9) << slow.step_time_s;
  EXPECT_LT(rel(slow.input_busy_s, 1.0), 1e-12);
  EXPECT_LT(rel(slow.input_wait_s, 0.47), 1e-9) << slow.input_wait_s;
  EXPECT_EQ(slow.bound, "input");
  in.input_samples_per_s = 40;
  const auto fast = engine::simulate(in);
  EXPECT_LT(rel(fast.step_time_s, 0.53), 1e-9) << fast.step_time_s;
  EXPECT_EQ(fast.input_wait_s, 0);
  EXPECT_EQ(fast.bound, "compute");
  // At 8 samples/s the input is busy 0.5 s a step, more than the 0.48 s of compute, but the
  // workers deliver during the fixed cost too: the step stays 0.53 s and compute bounds it.
  in.input_samples_per_s = 8;
  const auto busy = engine::simulate(in);
  EXPECT_LT(rel(busy.step_time_s, 0.53), 1e-9) << busy.step_time_s;
  EXPECT_LT(rel(busy.input_busy_s, 0.5), 1e-12);
  EXPECT_EQ(busy.bound, "compute");
  in.input_samples_per_s = 0;  // not simulated: the same step, no input resource
  const auto none = engine::simulate(in);
  EXPECT_LT(rel(none.step_time_s, 0.53), 1e-9);
  EXPECT_EQ(none.input_busy_s, 0);
}

// Input per CS-X: on 2 systems of 6 and 5 samples (B = 11), at 2 samples/s per system the
// fullest one's 6 samples take 3 s a step, far above the compute.
TEST(Engine, InputOfTheFullestSystemSetsTheStep) {
  auto p = ideal_platform();
  p.peak_flops = 1e15;
  auto in = input_for(uniform_model(4, 1e8, 1e12), p, 11, 2, 3);
  in.input_samples_per_s = 2;
  const auto r = engine::simulate(in);
  EXPECT_LT(rel(r.step_time_s, 3.0), 1e-9) << r.step_time_s;
  EXPECT_EQ(r.bound, "input");
}

// With I/O far from saturated, samples/s grows with num_csx at a fixed per-system batch.
TEST(Engine, ThroughputScalesWithSystems) {
  auto p = ideal_platform();
  p.peak_flops = 1e15;
  p.memoryx_bandwidth_Bps = 150e9;
  p.io_port_bandwidth_Bps = 150e9;
  p.swarmx_link_bandwidth_Bps = 150e9;
  p.swarmx_hop_latency_s = 5e-6;
  p.optimizer_rate_params_per_s = 1e11;
  const auto c = uniform_model(8, 1e7, 2e10);
  double last = 0;
  for (std::int64_t N : {1, 2, 4, 8, 16, 32}) {
    const std::int64_t P = 16;
    const auto r = engine::simulate(input_for(c, p, P * N, N, P));
    const double samples_per_s = static_cast<double>(P * N) / r.step_time_s;
    EXPECT_GT(samples_per_s, last * 1.8) << "N=" << N;
    last = samples_per_s;
  }
}

// B not divisible by N: the step is set by the fullest system. 10 over 3 = 4 + 3 + 3 takes as
// long as 12 over 3 = 4 + 4 + 4, and longer than 9 over 3.
TEST(Engine, UnevenSplitIsSetByTheFullestSystem) {
  auto p = ideal_platform();
  p.peak_flops = 1e15;
  const auto c = uniform_model(4, 1e8, 5e9);
  const auto uneven = engine::simulate(input_for(c, p, 10, 3, 4));
  const auto full = engine::simulate(input_for(c, p, 12, 3, 4));
  const auto small = engine::simulate(input_for(c, p, 9, 3, 3));
  EXPECT_LT(rel(uneven.step_time_s, full.step_time_s), 1e-12);
  EXPECT_LT(small.step_time_s, uneven.step_time_s * 0.8);
}

// The representative simulation (one system per SwarmX level) gives the full simulation's step
// time, for even and uneven splits, several tree depths, chunked transfers, train and eval.
TEST(Engine, RepresentativeEqualsFullSimulation) {
  const auto p = cs2_like_platform();
  const auto c = uniform_model(5, 3e8, 4e9);
  struct Case {
    std::int64_t B, N, mbs;
    model::Pass pass;
  };
  for (const auto& t : {Case{40, 4, 4, model::Pass::kTrain}, Case{41, 5, 3, model::Pass::kTrain},
                        Case{70, 17, 2, model::Pass::kTrain}, Case{23, 6, 1, model::Pass::kTrain},
                        Case{50, 7, 4, model::Pass::kEval}}) {
    auto in = input_for(c, p, t.B, t.N, t.mbs, t.pass);
    const auto full = engine::simulate(in, options(false, true));
    const auto rep = engine::simulate(in, options(true, true));
    EXPECT_LT(rel(rep.step_time_s, full.step_time_s), 1e-9) << t.B << " " << t.N;
    EXPECT_LT(rel(rep.compute_time_s, full.compute_time_s), 1e-9);
    EXPECT_LT(rep.activities, full.activities);
  }
}

// A representative run with picked systems (the SwarmX tree pruned to their paths) gives each
// picked system the timeline it has in the full simulation, and the same step time.
TEST(Engine, PickedSystemsKeepTheirFullTimeline) {
  const auto p = cs2_like_platform();
  const auto c = uniform_model(5, 3e8, 4e9);
  for (const auto pass : {model::Pass::kTrain, model::Pass::kEval}) {
    auto in = input_for(c, p, 70, 17, 2, pass);  // systems 0-1 hold 5 samples, 2-16 hold 4
    const auto full = engine::simulate(in, traced(false, {}));
    const auto picked = engine::simulate(in, traced(true, {3, 16}));
    EXPECT_LT(rel(picked.step_time_s, full.step_time_s), 1e-9);
    for (const std::string track : {"csx-0", "csx-3", "csx-16"}) {
      std::vector<std::pair<double, double>> a, b;
      for (const auto& e : full.trace)
        if (!e.counter && e.track == track) a.emplace_back(e.start_s, e.end_s);
      for (const auto& e : picked.trace)
        if (!e.counter && e.track == track) b.emplace_back(e.start_s, e.end_s);
      ASSERT_EQ(a.size(), b.size()) << track;
      ASSERT_FALSE(a.empty()) << track;
      for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_NEAR(a[i].first, b[i].first, 1e-9 * full.end_time_s) << track << " " << i;
        EXPECT_NEAR(a[i].second, b[i].second, 1e-9 * full.end_time_s) << track << " " << i;
      }
    }
    for (const auto& e : picked.trace)
      EXPECT_TRUE(e.counter || !e.track.starts_with("csx-") || e.track == "csx-0" ||
                  e.track == "csx-3" || e.track == "csx-16")
          << e.track;
  }
}

// Collapsing runs of identical microbatches gives the uncollapsed step time (periodic steady
// state), for compute- and streaming-bound plans, uneven groups, eval and on-wafer accumulation.
TEST(Engine, CollapsedMicrobatchesEqualTheFullRun) {
  auto p = cs2_like_platform();
  struct Case {
    double f;  // forward FLOP per sample: large = compute bound, small = streaming bound
    std::int64_t B, N, mbs;
    model::Pass pass;
    platform::GradientAccumulation acc;
  };
  const auto mem = platform::GradientAccumulation::kMemoryX;
  for (const auto& t :
       {Case{4e9, 64, 1, 2, model::Pass::kTrain, mem},   // 32 x 2
        Case{4e9, 61, 1, 3, model::Pass::kTrain, mem},   // 21 mb: 19 x 3 + 2 x 2
        Case{1e7, 60, 1, 2, model::Pass::kTrain, mem},   // streaming bound
        Case{4e9, 300, 4, 7, model::Pass::kTrain, mem},  // 11 x 7 + 0 ... uneven
        Case{4e9, 77, 1, 4, model::Pass::kEval, mem},
        Case{4e9, 50, 1, 2, model::Pass::kTrain, platform::GradientAccumulation::kWafer}}) {
    p.gradient_accumulation = t.acc;
    auto in = input_for(uniform_model(4, 3e8, t.f), p, t.B, t.N, t.mbs, t.pass);
    const auto full = engine::simulate(in, options(true, false));
    const auto fast = engine::simulate(in, options(true, true));
    EXPECT_LT(rel(fast.step_time_s, full.step_time_s), 1e-9) << t.B << "/" << t.mbs;
    EXPECT_LT(rel(fast.compute_time_s, full.compute_time_s), 1e-9) << t.B << "/" << t.mbs;
    EXPECT_LT(std::fabs(fast.exposed_stream_time_s - full.exposed_stream_time_s),
              1e-9 * full.step_time_s);
    EXPECT_EQ(fast.bound, full.bound);
    EXPECT_LT(fast.activities, full.activities);
  }
}

// The SwarmX tree: fan-out 4, depth ceil(log4 N), at least one node.
TEST(SwarmxTree, Shape) {
  EXPECT_EQ(plan::build_swarmx_tree(1, 4).depth, 1);
  EXPECT_EQ(plan::build_swarmx_tree(4, 4).nodes.size(), 1u);
  EXPECT_EQ(plan::build_swarmx_tree(5, 4).depth, 2);
  EXPECT_EQ(plan::build_swarmx_tree(16, 4).nodes.size(), 5u);
  EXPECT_EQ(plan::build_swarmx_tree(2048, 4).depth, 6);
  // Pruned to systems 0, 5, 100, 127 of 128: leaves of 0-3, 4-7, 100-103, 124-127; level 2 over
  // 0-15, 96-111, 112-127; level 3 over 0-63, 64-127; the root.
  const auto sub = plan::build_swarmx_subtree(128, 4, {0, 5, 100, 127});
  EXPECT_EQ(sub.depth, 4);
  EXPECT_EQ(sub.nodes.size(), 10u);
  EXPECT_EQ(sub.system_ids, (std::vector<std::int64_t>{0, 5, 100, 127}));
  EXPECT_EQ(sub.nodes[static_cast<std::size_t>(sub.root())].level, 4);
  EXPECT_EQ(sub.nodes[static_cast<std::size_t>(sub.root())].child_nodes.size(), 2u);
  EXPECT_EQ(plan::build_swarmx_chain(2048, 4).nodes.size(), 6u);
  EXPECT_THROW((void)plan::build_swarmx_subtree(16, 4, {5}), std::invalid_argument);
  EXPECT_THROW((void)plan::build_swarmx_subtree(16, 4, {0, 0}), std::invalid_argument);
  EXPECT_THROW((void)plan::build_swarmx_subtree(16, 4, {0, 16}), std::invalid_argument);
}
