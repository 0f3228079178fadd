// The exact reductions (one system per SwarmX level, collapsed microbatches, one simulated
// training step) against the full simulation: every system, microbatch and step.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "batching/batch_split.hpp"
#include "batching/step_plan.hpp"
#include "batching/supported_sizes.hpp"
#include "engine/exact_reductions.hpp"
#include "engine/simulation.hpp"
#include "input/platform_loader.hpp"
#include "input/scenario.hpp"
#include "model/layer_costs.hpp"
#include "plan/step_bound.hpp"
#include "test_models.hpp"

using namespace csx;
using test::rel;
using test::uniform_model;

namespace {

// No reduction at all.
engine::Options reductions(bool representative, bool collapse, bool steps) {
  engine::Options o;
  o.representative = representative;
  o.collapse_microbatches = collapse;
  o.reduce_steps = steps;
  return o;
}
const engine::Options kFull = reductions(false, false, false);

// The reduced result equals the full one: step and compute time to 1e-9 relative, the exposed
// wait to 1e-9 of the step, the same bound; and fewer activities were simulated.
void expect_equal(const engine::SimulationResult& fast, const engine::SimulationResult& full,
                  const std::string& what) {
  EXPECT_LT(rel(fast.step_time_s, full.step_time_s), 1e-9) << what;
  EXPECT_LT(rel(fast.compute_time_s, full.compute_time_s), 1e-9) << what;
  EXPECT_LT(std::fabs(fast.exposed_stream_time_s - full.exposed_stream_time_s),
            1e-9 * full.step_time_s)
      << what;
  EXPECT_LT(rel(fast.end_time_s, full.end_time_s), 1e-9) << what;
  EXPECT_EQ(fast.bound, full.bound) << what;
  EXPECT_LE(fast.activities, full.activities) << what;
}

// The value of S(P) whose k is nearest to `k`, preferring one that splits P unevenly.
std::int64_t mbs_with_about(std::int64_t P, std::int64_t k) {
  std::int64_t best = P, best_score = -1;
  for (const auto& s : batching::supported_micro_batch_sizes(P)) {
    const std::int64_t score =
        2 * std::llabs(s.num_microbatches - k) + (P % s.micro_batch_size == 0 ? 1 : 0);
    if (best_score < 0 || score < best_score) {
      best = s.micro_batch_size;
      best_score = score;
    }
  }
  return best;
}

}  // namespace

// Every shipped scenario, as shipped (its batch and num_csx) and with one sample more (an
// uneven split over the systems and uneven microbatches), at an MBS with about 7 microbatches
// so that microbatches collapse; BERT also in eval.
TEST(ExactReductions, ShippedScenariosEqualTheFullSimulation) {
  const std::string root = CSXSIM_SOURCE_DIR;
  int checked = 0, engaged = 0;  // engaged: a step or microbatch reduction held
  for (const auto& entry : std::filesystem::directory_iterator(root + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    const auto scenario = io::load_scenario(entry.path().string(), root, std::nullopt);
    const auto platform = platform::load_platform(scenario.platform, root);
    const auto costs = model::layer_costs(scenario.model);
    const std::int64_t N = scenario.num_csx.value_or(1);
    for (const std::int64_t extra : {0, 1}) {
      const std::int64_t B = *scenario.batch_size + extra;
      const auto split = batching::split_batch(B, N);
      engine::SimulationInput in;
      in.costs = costs;
      in.platform = platform;
      in.plan = batching::make_plan(split, mbs_with_about(split.per_system_batch_size, 7));
      in.seq_len = scenario.model.seq_len;
      // Reduced, full, and representative only (to see that the other reductions engaged).
      engine::Options representative_only = kFull;
      representative_only.representative = true;
      std::vector<engine::Run> runs{{in, {}}, {in, kFull}, {in, representative_only}};
      if (entry.path().stem() == "bert_large_msl128_1x_cs2") {
        in.pass = model::Pass::kEval;
        runs.insert(runs.end(), {{in, {}}, {in, kFull}, {in, representative_only}});
      }
      const auto r = engine::simulate_all(runs);
      for (std::size_t i = 0; i < r.size(); i += 3) {
        const std::string what = fmt::format("{} B={} N={} MBS={} {}", entry.path().stem().string(),
                                             B, N, in.plan.micro_batch_size, i / 3);
        expect_equal(r[i], r[i + 1], what);
        expect_equal(r[i + 2], r[i + 1], what + " representative");
        if (r[i].activities < r[i + 2].activities) ++engaged;
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 12);
  EXPECT_GE(engaged, checked / 2);
}

// With finite links the bound stays at or below the simulated step: every shipped scenario,
// at its per-system batch and at several microbatches, train and eval.
TEST(Engine, StepLowerBoundNeverExceedsTheSimulatedStep) {
  const std::string root = CSXSIM_SOURCE_DIR;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    const auto scenario = io::load_scenario(entry.path().string(), root, std::nullopt);
    const auto costs = model::layer_costs(scenario.model);
    const auto platform = platform::load_platform(scenario.platform, root);
    const auto split = batching::split_batch(*scenario.batch_size, scenario.num_csx.value_or(1));
    std::vector<engine::SimulationInput> inputs;
    for (const std::int64_t k : {1, 4})
      for (const auto pass : {model::Pass::kTrain, model::Pass::kEval}) {
        engine::SimulationInput in;
        in.costs = costs;
        in.platform = platform;
        in.plan = batching::make_plan(split, mbs_with_about(split.per_system_batch_size, k));
        in.pass = pass;
        in.seq_len = scenario.model.seq_len;
        in.recompute_passes = 1;
        inputs.push_back(in);
      }
    const auto r = engine::simulate_all(inputs);
    for (std::size_t i = 0; i < r.size(); ++i) {
      const double bound = plan::step_time_lower_bound_s(inputs[i]);
      EXPECT_LE(bound, r[i].step_time_s * (1 + 1e-9)) << entry.path().stem() << " " << i;
      EXPECT_GT(bound, 0) << entry.path().stem() << " " << i;
      ++checked;
    }
  }
  EXPECT_GE(checked, 24);
}

// Each reduction alone against none, on compute-bound, streaming-bound and uneven plans, and
// the fallbacks: the step reduction is refused when the first microbatch's overhead outlasts
// the first weights, yet the result stays exact.
TEST(ExactReductions, EachReductionAloneEqualsTheFullRun) {
  platform::PlatformSpec p = platform::load_platform("cs2", CSXSIM_SOURCE_DIR);
  p.swarmx_chunk_bytes = 1e8;
  struct Case {
    double w, f;  // weight bytes and forward FLOP per sample of each of 5 layers
    std::int64_t B, N, mbs;
    double overhead_s;
    double first_w;  // weight bytes of the first layer
    bool reduces;    // whether one step may stand for all
  };
  for (const auto& t :
       {Case{3e8, 4e9, 64, 1, 2, 1e-3, 3e8, true},  // compute bound, 32 microbatches
        Case{3e8, 1e7, 61, 1, 3, 1e-3, 3e8, true},  // streaming bound, 19 x 3 + 2 x 2
        Case{3e8, 4e9, 41, 3, 2, 1e-3, 3e8, true},  // uneven split over 3 systems
        Case{1e3, 4e9, 20, 1, 2, 0.5, 1e3, false},  // overhead outlasts all the weights
        // The first layer arrives during the overhead, a later one is waited for: a later
        // step starts earlier than the first, so one step may not stand for all.
        Case{1e8, 1e7, 20, 1, 2, 5e-3, 1e3, false}}) {
    p.microbatch_overhead_s = t.overhead_s;
    engine::SimulationInput none;
    none.costs = uniform_model(5, t.w, t.f);
    none.costs.layers.front().weight_bytes = t.first_w;
    none.platform = p;
    none.plan = batching::make_plan(batching::split_batch(t.B, t.N), t.mbs);
    none.seq_len = 1000;
    none.simulated_steps = 3;
    const engine::Options no_reduction = reductions(true, false, false);
    auto steps_only = no_reduction, microbatches_only = no_reduction;
    steps_only.reduce_steps = true;
    microbatches_only.collapse_microbatches = true;
    const auto r = engine::simulate_all(
        {{none, no_reduction}, {none, steps_only}, {none, microbatches_only}, {none, kFull}});
    const std::string what = fmt::format("B={} N={} MBS={}", t.B, t.N, t.mbs);
    expect_equal(r[1], r[0], "steps " + what);
    expect_equal(r[2], r[0], "microbatches " + what);
    expect_equal(r[0], r[3], "representative " + what);
    for (std::size_t s = 0; s < r[0].step_end_s.size(); ++s)
      EXPECT_LT(rel(r[1].step_end_s[s], r[0].step_end_s[s]), 1e-9) << what;
    if (t.reduces) {
      EXPECT_LT(r[1].activities, r[0].activities / 2) << "one of three steps " << what;
    } else {
      EXPECT_EQ(r[1].activities, r[0].activities) << "refused, all steps simulated " << what;
    }
    if (t.B / t.N / t.mbs >= 16) {
      EXPECT_LT(r[2].activities, r[0].activities / 2) << "four microbatches of many " << what;
    }
  }
}

// The step check itself, on a made-up one-step result: refused when the first weights were
// already there after the overhead; else two steps of 2 s, and in the second system 0 waits
// from 1.5 s (its end of the step before) instead of 0 s: 0.5 s more than its 0.25 s.
TEST(ExactReductions, StepReductionNeedsAWaitForTheFirstWeights) {
  engine::EngineRun in;
  in.input.costs = uniform_model(2, 1e6, 1e6);
  in.input.platform = platform::load_platform("cs2", CSXSIM_SOURCE_DIR);
  in.input.platform.microbatch_overhead_s = 1e-3;
  in.input.pass = model::Pass::kTrain;
  in.input.simulated_steps = 2;
  in.options.collapse_microbatches = false;
  in.input.plan = batching::make_plan(batching::split_batch(4, 1), 4);
  ASSERT_TRUE(engine::reduces_steps(in));
  engine::SimulationResult r;
  r.step_end_s = {2.0};
  r.step_time_s = 2.0;
  r.exposed_stream_time_s = 0.25;
  r.microbatch_start_s = {0.0};
  r.microbatch_end_s = {1.5};
  r.microbatch_wait_s = {0.25};
  r.microbatch_compute_s = {1.0};
  r.first_weights_wait_s = 0.0;  // a later layer was waited for, the first one was there
  auto refused = in;
  EXPECT_FALSE(engine::extend_result(refused, r).has_value());
  EXPECT_FALSE(refused.options.reduce_steps);
  r.first_weights_wait_s = 0.125;
  auto kept = in;
  const auto full = engine::extend_result(kept, r);
  ASSERT_TRUE(full.has_value());
  EXPECT_EQ(full->step_end_s, (std::vector<double>{2.0, 4.0}));
  EXPECT_DOUBLE_EQ(full->step_time_s, 2.0);
  EXPECT_DOUBLE_EQ(full->exposed_stream_time_s, 0.75);
  // Per microbatch, in the second step: starts at 1.5 s, ends at 2 + 1.5 s, waits 0.75 s.
  EXPECT_EQ(full->microbatch_start_s, (std::vector<double>{1.5}));
  EXPECT_EQ(full->microbatch_end_s, (std::vector<double>{3.5}));
  EXPECT_EQ(full->microbatch_wait_s, (std::vector<double>{0.75}));
}

// A plan's result does not depend on how many processes run at once; alone, it differs from
// the same plan simulated after others only in the last bits (the engine's clock goes on).
TEST(ExactReductions, ResultsDoNotDependOnTheProcessCount) {
  platform::PlatformSpec p = platform::load_platform("cs2", CSXSIM_SOURCE_DIR);
  std::vector<engine::SimulationInput> inputs;
  for (const std::int64_t mbs : {1, 2, 3, 5, 9, 13}) {  // values of S(26)
    engine::SimulationInput in;
    in.costs = uniform_model(4, 2e8, 3e9);
    in.platform = p;
    in.plan = batching::make_plan(batching::split_batch(26, 1), mbs);
    in.seq_len = 512;
    inputs.push_back(in);
  }
  const auto one = engine::simulate_all(inputs, {}, 1);
  const auto three = engine::simulate_all(inputs, {}, 3);
  const auto alone = engine::simulate_all({inputs[4]}, {}, 1);
  ASSERT_EQ(one.size(), inputs.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].step_time_s, three[i].step_time_s) << i;
    EXPECT_EQ(one[i].exposed_stream_time_s, three[i].exposed_stream_time_s) << i;
  }
  EXPECT_LT(rel(alone[0].step_time_s, one[4].step_time_s), 1e-12);
}
