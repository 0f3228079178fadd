// The compute model's shape mechanisms (sim/model/compute_model.hpp), checked against the
// arithmetic of their formulas worked by hand here.
#include <gtest/gtest.h>

#include "input/platform_loader.hpp"
#include "model/compute_model.hpp"

namespace csx {
namespace {

TEST(ComputeMechanisms, AttentionFillIsMultiplyAddCyclesOverAllCycles) {
  auto p = platform::load_platform("cs2", CSXSIM_SOURCE_DIR);
  p.softmax_cycles_per_score = 32;
  // Heads of 64 on 4 lanes: 2 x 64 / 4 = 32 cycles of multiply-adds per score, 32 of softmax.
  EXPECT_DOUBLE_EQ(model::attention_fill(p, 64), 0.5);
  // Heads of 128: 64 / (64 + 32).
  EXPECT_DOUBLE_EQ(model::attention_fill(p, 128), 64.0 / 96.0);
  // A CS-3's 8 lanes halve the multiply-add cycles: 16 / (16 + 32) for heads of 64.
  auto p3 = platform::load_platform("cs3", CSXSIM_SOURCE_DIR);
  p3.softmax_cycles_per_score = 32;
  EXPECT_DOUBLE_EQ(model::attention_fill(p3, 64), 16.0 / 48.0);
  EXPECT_DOUBLE_EQ(model::attention_fill(p, 0), 1.0);
  p.softmax_cycles_per_score = 0;
  EXPECT_DOUBLE_EQ(model::attention_fill(p, 64), 1.0);
}

TEST(ComputeMechanisms, SramFillIsSupplyOverNeedCappedAtOne) {
  auto p2 = platform::load_platform("cs2", CSXSIM_SOURCE_DIR);
  auto p3 = platform::load_platform("cs3", CSXSIM_SOURCE_DIR);
  p2.sram_bytes_per_flop = p3.sram_bytes_per_flop = 2.0;
  // CS-2: 20 PB/s over 7.5 PFLOP/s = 2.67 bytes per FLOP supplied, 2 needed: full rate.
  EXPECT_DOUBLE_EQ(model::sram_fill(p2), 1.0);
  // CS-3: 21 PB/s over 15 PFLOP/s = 1.4 bytes per FLOP supplied, 2 needed: 0.7 of the rate.
  EXPECT_DOUBLE_EQ(model::sram_fill(p3), 1.4 / 2.0);
  // The kernel's time grows by 1 / 0.7 (1 GFLOP at 100 % fill would take 1e9 / (peak x eff)).
  const double flops = 1e9, tokens = 1e9;  // tokens enough that simd_fill is ~1
  const double base =
      flops / (p3.peak_flops * p3.compute_efficiency * model::simd_fill(p3, tokens));
  EXPECT_NEAR(model::kernel_time_s(p3, tokens, flops) - p3.kernel_overhead_s, base / 0.7,
              1e-12 * base);
  p3.sram_bytes_per_flop = 0;  // no SRAM need: the mechanism is off
  EXPECT_DOUBLE_EQ(model::sram_fill(p3), 1.0);
}

TEST(ComputeMechanisms, ReductionFillSplitsInputFeaturesOverColumns) {
  auto p = platform::load_platform("cs2", CSXSIM_SOURCE_DIR);
  ASSERT_EQ(p.fabric_columns, 757);
  p.reduce_cycles_per_output = 0.5;
  // K = 757 x 4 x 2: two cycles of multiply-adds per output against 0.5 of reduction.
  EXPECT_DOUBLE_EQ(model::reduction_fill(p, 757 * 4 * 2.0), 2.0 / 2.5);
  EXPECT_DOUBLE_EQ(model::reduction_fill(p, 0), 1.0);
}

TEST(ComputeMechanisms, LayerTimeWeighsEachProductByItsFill) {
  auto p = platform::load_platform("cs2", CSXSIM_SOURCE_DIR);
  p.compute_efficiency = 0.5;
  p.dispatch_overhead_cycles = 0;  // full SIMD fill
  p.kernel_overhead_s = 0;
  p.softmax_cycles_per_score = 32;   // heads of 64: fill 0.5
  p.reduce_cycles_per_output = 0.5;  // K = 6056: fill 0.8
  model::Layer L;
  L.matmuls = {{757 * 4 * 2.0, 1000, 3e12, 0}, {64, 2048, 1e12, 64}};
  L.forward_flops = 4e12;
  // 3e12 at fill 0.8 and 1e12 at fill 0.5 take as long as 3.75e12 + 2e12 = 5.75e12 FLOP at
  // full rate; a pass of 8e12 FLOP (say backward) scales the same: 11.5e12 equivalent.
  const double rate = p.peak_flops * 0.5;
  EXPECT_NEAR(model::kernel_time_s(p, L, 1e6, 8e12), 11.5e12 / rate, 1e-12);
  // A layer with no products (embedding lookup) runs its FLOP at the plain rate.
  model::Layer lookup;
  EXPECT_NEAR(model::kernel_time_s(p, lookup, 1e6, 1e12), 1e12 / rate, 1e-12);
}

}  // namespace
}  // namespace csx
