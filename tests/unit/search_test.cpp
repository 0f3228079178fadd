// run_search with a fake simulator whose step times the test sets, and the choice rules
// (batching::choose, batching::auto_extra_candidate) against the Cerebras "Automatic
// Microbatching" guide and docs/rules.md#microbatching-rules. Every expected value is worked out
// by hand in the comments.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "batching/batch_split.hpp"
#include "batching/choice_rules.hpp"
#include "batching/resolve.hpp"
#include "search/search.hpp"

using namespace csx;
using batching::Evaluated;
using batching::MbsAuto;
using batching::MbsExplore;
using batching::MbsFixed;
using batching::MbsNone;

namespace {

constexpr double kBytesPerSample = 100;  // activations kept per sample (all kept)

// One block keeping kBytesPerSample per sample, no weights: a microbatch of m samples needs
// m x 100 bytes of SRAM and nothing else.
model::ModelCosts synthetic_costs(std::int64_t parameters = 0) {
  model::Layer block;
  block.name = "block.0";
  block.kind = model::LayerKind::kBlock;
  block.parameters = parameters;
  block.activation_bytes = kBytesPerSample;
  block.boundary_bytes = kBytesPerSample;
  model::ModelCosts c;
  c.layers = {block};
  c.num_blocks = 1;
  return c;
}

// A wafer whose whole SRAM is for activations (no workspace, no weight buffers; gradients go
// to MemoryX and the layer has no weights) and that never recomputes: m fits iff
// m x 100 <= sram_bytes.
platform::PlatformSpec synthetic_platform(double sram_bytes) {
  platform::PlatformSpec p;
  p.name = "synthetic";
  p.sram_bytes = sram_bytes;
  p.usable_sram_fraction = 1;
  p.workspace_bytes = 0;
  p.weight_buffers = 0;
  p.store_all_activations = true;
  p.gradient_accumulation = platform::GradientAccumulation::kMemoryX;
  p.memoryx_capacity_bytes = 1e12;
  p.memoryx_bytes_per_parameter = 16;
  p.peak_flops = 1e15;
  p.step_overhead_s = 0;
  return p;
}

struct Fixture {
  search::SearchRequest request;
  std::map<std::int64_t, double> step_time_s;  // by MBS: what the fake simulator returns
  std::vector<std::int64_t> simulated;         // MBS values it was asked for, in order
  int traced = 0;                              // batches simulated with a timeline

  Fixture(const batching::MbsSetting& setting, std::int64_t B, double sram_bytes,
          bool compile_only = false) {
    request.split = batching::split_batch(B, 1);
    request.traits = {"gpt3", true, false};
    request.resolution = batching::resolve(setting, request.split, request.traits, compile_only);
    request.costs = synthetic_costs();
    request.platform = synthetic_platform(sram_bytes);
    request.seq_len = 2048;
  }

  search::SearchOutcome run() {
    return search::run_search(
        request, [this](const std::vector<plan::SimulationInput>& in, bool record_trace) {
          if (record_trace) ++traced;
          std::vector<plan::SimulationResult> out;
          for (const auto& i : in) {
            simulated.push_back(i.plan.micro_batch_size);
            plan::SimulationResult r;
            r.step_time_s = step_time_s.at(i.plan.micro_batch_size);
            out.push_back(r);
          }
          return out;
        });
  }
};

std::vector<std::int64_t> sizes(const search::SearchOutcome& o) {
  std::vector<std::int64_t> v;
  for (const auto& r : o.rows) v.push_back(r.micro_batch_size);
  return v;
}

}  // namespace

// explore evaluates every supported size (the guide: "all possible micro-batch sizes regardless
// of divisibility"). P = 12: S(12) = {ceil(12/k) : k = 1..12} = {12, 6, 4, 3, 2, 1}
// (k = 1, 2, 3, 4, then 5 -> 3, 6 -> 2, 7..11 -> 2, 12 -> 1). With 1000 bytes of SRAM, m fits
// iff 100 m <= 1000, m <= 10: 12 is reported as not fitting and never simulated. Of the rest,
// 4 is the fastest (1.5 s); the runner-up, 3 at 1.8 s, is 1.8 / 1.5 - 1 = 20 % slower, more
// than 3 %: no close call.
TEST(RunSearch, ExploreTakesTheFastestFittingSize) {
  Fixture f(MbsExplore{}, 12, 1000, true);
  f.step_time_s = {{6, 2.0}, {4, 1.5}, {3, 1.8}, {2, 2.5}, {1, 4.0}};
  const auto out = f.run();
  EXPECT_EQ(sizes(out), (std::vector<std::int64_t>{12, 6, 4, 3, 2, 1}));
  EXPECT_FALSE(out.rows[0].fits);
  EXPECT_FALSE(out.rows[0].simulated);
  EXPECT_NE(out.rows[0].reason.find("micro_batch_size 12"), std::string::npos);
  EXPECT_EQ(f.simulated, (std::vector<std::int64_t>{6, 4, 3, 2, 1}));
  EXPECT_EQ(out.simulations, 5);
  ASSERT_TRUE(out.chosen);
  EXPECT_EQ(*out.chosen, 2u);
  EXPECT_TRUE(out.rows[2].chosen);
  EXPECT_EQ(out.decision, "explore chose 4: fastest of 5 fitting candidates");
  // k = ceil(12 / 4) = 3 microbatches; 12 samples in 1.5 s = 8 samples/s, x 2048 tokens.
  EXPECT_EQ(out.rows[2].num_microbatches, 3);
  EXPECT_DOUBLE_EQ(out.rows[2].samples_per_s, 8.0);
  EXPECT_DOUBLE_EQ(out.rows[2].tokens_per_s, 8.0 * 2048);
}

// A tie goes to the larger MBS (fewer microbatches): 4 and 3 both at 1.5 s -> 4. It is a close
// call (0.0 %).
TEST(RunSearch, ExploreTieGoesToTheLargerSize) {
  Fixture f(MbsExplore{}, 12, 1000, true);
  f.step_time_s = {{6, 2.0}, {4, 1.5}, {3, 1.5}, {2, 2.5}, {1, 4.0}};
  const auto out = f.run();
  ASSERT_TRUE(out.chosen);
  EXPECT_EQ(out.rows[*out.chosen].micro_batch_size, 4);
  EXPECT_EQ(out.decision,
            "explore chose 4: fastest of 5 fitting candidates (close call: runner-up 3 within "
            "0.0%)");
}

// auto for B = 99 on one system: P = 99 and the proper divisors greater than 1, 3, 9, 11, 33
// (the real stack tried "3, 33, 9, 11" for 99; docs/rules.md#microbatching-rules). SRAM 9900
// bytes: 99 x 100 fits, so every candidate fits. 33 is the fastest, at 0.98 s against P's
// 1.00 s: (1 / 0.98) / (1 / 1.00) - 1 = 2.04 %, not more than 3 %: auto keeps 99.
TEST(RunSearch, AutoKeepsPUnderTheThreshold) {
  Fixture f(MbsAuto{}, 99, 9900);
  f.step_time_s = {{99, 1.00}, {33, 0.98}, {11, 1.05}, {9, 1.10}, {3, 1.40}};
  const auto out = f.run();
  EXPECT_EQ(sizes(out), (std::vector<std::int64_t>{99, 33, 11, 9, 3}));
  EXPECT_EQ(f.simulated, (std::vector<std::int64_t>{99, 33, 11, 9, 3}));
  ASSERT_TRUE(out.chosen);
  EXPECT_EQ(*out.chosen, 0u);
  EXPECT_EQ(out.decision,
            "auto kept 99: no benefit from gradient accumulation expected (close call: best "
            "other candidate 33 is 2.0% faster, threshold 3%)");
}

// The same with 33 at 0.95 s: 1 / 0.95 - 1 = 5.26 % > 3 %: auto takes 33. The runner-up, P at
// 1.00 s, is 1.00 / 0.95 - 1 = 5.3 % behind: no close call.
TEST(RunSearch, AutoTakesAClearlyFasterSize) {
  Fixture f(MbsAuto{}, 99, 9900);
  f.step_time_s = {{99, 1.00}, {33, 0.95}, {11, 1.05}, {9, 1.10}, {3, 1.40}};
  const auto out = f.run();
  ASSERT_TRUE(out.chosen);
  EXPECT_EQ(out.rows[*out.chosen].micro_batch_size, 33);
  EXPECT_EQ(out.decision,
            "auto chose MBS 33: 5.3% faster than MBS 99 (the whole per-system batch in one "
            "microbatch); auto splits the batch only for a gain above 3% (auto_min_speedup)");
}

// A trace: the candidates are simulated without a timeline, then the chosen one (33) once more
// with it, and its row is that second simulation's.
TEST(RunSearch, TraceSimulatesTheChosenSizeAgainWithItsTimeline) {
  Fixture f(MbsAuto{}, 99, 9900);
  f.request.record_trace = true;
  f.step_time_s = {{99, 1.00}, {33, 0.95}, {11, 1.05}, {9, 1.10}, {3, 1.40}};
  const auto out = f.run();
  ASSERT_TRUE(out.chosen);
  EXPECT_EQ(out.rows[*out.chosen].micro_batch_size, 33);
  EXPECT_EQ(f.traced, 1);
  EXPECT_EQ(f.simulated, (std::vector<std::int64_t>{99, 33, 11, 9, 3, 33}));
}

// auto with P = 10 not fitting: divisors 5 and 2 (auto's candidates 10, 5, 2), and the largest
// supported size that fits is added. SRAM 400 bytes: m <= 4 fits; S(10) = {10, 5, 4, 3, 2, 1}
// (k = 1, 2, 3 -> 4, 4 -> 3, 5..9 -> 2, 10 -> 1), so 4 is added. 10 and 5 do not fit and are
// not simulated; of 4 (1.0 s) and 2 (1.5 s), 4 wins.
TEST(RunSearch, AutoAddsTheLargestFittingSizeWhenPDoesNotFit) {
  Fixture f(MbsAuto{}, 10, 400);
  f.step_time_s = {{4, 1.0}, {2, 1.5}};
  const auto out = f.run();
  EXPECT_EQ(sizes(out), (std::vector<std::int64_t>{10, 5, 4, 2}));
  EXPECT_FALSE(out.rows[0].fits);
  EXPECT_FALSE(out.rows[1].fits);
  EXPECT_EQ(f.simulated, (std::vector<std::int64_t>{4, 2}));
  ASSERT_TRUE(out.chosen);
  EXPECT_EQ(*out.chosen, 2u);
  EXPECT_EQ(out.decision,
            "auto chose 4: per-system batch 10 does not fit on-chip memory; fastest fitting "
            "candidate");
}

// none is the whole per-system batch (the guide: "use the global batch_size ... as the
// microbatch size"); when it does not fit (12 x 100 > 1000) nothing is simulated and nothing
// chosen ("compilation will fail").
TEST(RunSearch, NoneThatDoesNotFitChoosesNothing) {
  Fixture f(MbsNone{}, 12, 1000);
  const auto out = f.run();
  EXPECT_EQ(sizes(out), (std::vector<std::int64_t>{12}));
  EXPECT_TRUE(f.simulated.empty());
  EXPECT_EQ(out.simulations, 0);
  EXPECT_FALSE(out.chosen);
  EXPECT_EQ(out.decision, "no candidate fits in on-chip memory");
}

// MemoryX too small for the model: 10 parameters x 16 bytes = 160 bytes against 100. Every row
// gives that reason, although the SRAM would hold them, and nothing is simulated.
TEST(RunSearch, MemoryXTooSmallRunsNothing) {
  Fixture f(MbsExplore{}, 12, 1e9, true);
  f.request.costs = synthetic_costs(10);
  f.request.platform.memoryx_capacity_bytes = 100;
  const auto out = f.run();
  EXPECT_EQ(out.rows.size(), 6u);
  for (const auto& r : out.rows) {
    EXPECT_FALSE(r.fits);
    EXPECT_NE(r.reason.find("MemoryX holds"), std::string::npos) << r.reason;
  }
  EXPECT_TRUE(f.simulated.empty());
  EXPECT_FALSE(out.chosen);
}

// A fixed MBS: the guide's worked example B = 133, N = 1, micro_batch_size 34 is kept (34 is
// in S(133)); it is the one row, simulated once.
TEST(RunSearch, FixedSizeIsTheOneRow) {
  Fixture f(MbsFixed{34}, 133, 34 * 100);
  f.step_time_s = {{34, 2.0}};
  const auto out = f.run();
  EXPECT_EQ(sizes(out), (std::vector<std::int64_t>{34}));
  EXPECT_EQ(f.simulated, (std::vector<std::int64_t>{34}));
  ASSERT_TRUE(out.chosen);
  // k = ceil(133 / 34) = 4 microbatches (the guide's example).
  EXPECT_EQ(out.rows[0].num_microbatches, 4);
  EXPECT_EQ(out.decision, "micro_batch_size 34");
}

// auto's extra candidate, against the worked examples' supported sets (Cerebras "Automatic
// Microbatching": the supported MBS values are ceil(P / k) for k = 1..P).
TEST(AutoExtraCandidate, LargestSupportedSizeThatFits) {
  // B = 133, N = 1: P = 133, S starts {133, 67, 45, 34, 27, ...}. If at most 40 samples fit,
  // the largest supported size <= 40 is 34; at most 66 -> 45; at most 67 -> 67.
  EXPECT_EQ(batching::auto_extra_candidate(133, false, false, 40), 34);
  EXPECT_EQ(batching::auto_extra_candidate(133, false, false, 66), 45);
  EXPECT_EQ(batching::auto_extra_candidate(133, false, false, 67), 67);
  // B = 673, N = 2: P = 337, S starts {337, 169, 113, 85, 68, ...}. At most 168 -> 113 (168
  // itself is not supported: the guide's example moves it to 169, which would not fit); at
  // most 100 -> 85.
  EXPECT_EQ(batching::auto_extra_candidate(337, false, false, 168), 113);
  EXPECT_EQ(batching::auto_extra_candidate(337, false, false, 100), 85);
  // Nothing fits (max_fitting 0): 1, so that its row reports the least memory any size needs.
  EXPECT_EQ(batching::auto_extra_candidate(337, false, false, 0), 1);
}

TEST(AutoExtraCandidate, NoneWhenPFitsOrWithBatchNorm) {
  // P fits: auto keeps its own candidates.
  EXPECT_FALSE(batching::auto_extra_candidate(133, true, false, 200));
  // Batch normalization: microbatching is not compatible with it (the guide's Limitations).
  EXPECT_FALSE(batching::auto_extra_candidate(256, false, true, 64));
}

// choose() on the rules as docs/rules.md#microbatching-rules and the guide state them.
TEST(Choose, FixedAndNoneTakeTheirOneCandidate) {
  const auto fixed = batching::choose(MbsFixed{34}, 133, {{34, true, 2.0}}, 0.03);
  EXPECT_EQ(fixed.chosen, 0u);
  EXPECT_EQ(fixed.decision, "micro_batch_size 34");
  // none that does not fit: nothing runs ("compilation will fail").
  const auto none = batching::choose(MbsNone{}, 133, {{133, false, 0}}, 0.03);
  EXPECT_FALSE(none.chosen);
  EXPECT_EQ(none.decision, "no candidate fits in on-chip memory");
}

TEST(Choose, ExploreSkipsWhatDoesNotFit) {
  // 6 would be fastest (0.5 s) but does not fit: explore takes 4 (1.0 s) over 3 (2.0 s).
  const auto c =
      batching::choose(MbsExplore{}, 12, {{6, false, 0.5}, {4, true, 1.0}, {3, true, 2.0}}, 0.03);
  EXPECT_EQ(c.chosen, 1u);
  EXPECT_EQ(c.decision, "explore chose 4: fastest of 2 fitting candidates");
}

// auto keeps P unless another candidate is *more* than auto_min_speedup faster. With step
// times 2.0 s (P) and 1.0 s (the other), the gain is (1 / 1.0) / (1 / 2.0) - 1 = 100 % exactly
// (exact in binary): with a threshold of 100 % P is kept, with 99 % the other is taken.
TEST(Choose, AutoThresholdIsStrict) {
  const std::vector<Evaluated> c{{12, true, 2.0}, {6, true, 1.0}};
  EXPECT_EQ(batching::choose(MbsAuto{}, 12, c, 1.0).chosen, 0u);
  EXPECT_EQ(batching::choose(MbsAuto{}, 12, c, 0.99).chosen, 1u);
}

// A tie between P and a smaller size: P is the larger, so the tie rule and auto both keep it.
TEST(Choose, AutoTieKeepsP) {
  const auto c = batching::choose(MbsAuto{}, 12, {{12, true, 1.0}, {6, true, 1.0}}, 0.03);
  EXPECT_EQ(c.chosen, 0u);
  EXPECT_EQ(c.decision,
            "auto kept 12: it is the fastest candidate (close call: runner-up 6 within 0.0%)");
}

// Nothing fits: no choice, whatever the setting.
TEST(Choose, NothingFits) {
  const std::vector<Evaluated> c{{12, false, 0}, {6, false, 0}};
  for (const batching::MbsSetting& s :
       std::vector<batching::MbsSetting>{MbsAuto{}, MbsExplore{}, MbsFixed{6}})
    EXPECT_FALSE(batching::choose(s, 12, c, 0.03).chosen);
}
