// Platform files, the efficiency model's physical bounds, and the memory model.
#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "model/layer_costs.hpp"
#include "model/memory_model.hpp"
#include "model/model_loader.hpp"
#include "platform/efficiency.hpp"
#include "platform/platform_spec.hpp"

using namespace csx;

namespace {
platform::PlatformSpec cs2() { return platform::load_platform("cs2", CSXSIM_SOURCE_DIR); }
model::ModelCosts costs_of(const std::string& stem) {
  return model::layer_costs(
      model::load_model(std::string(CSXSIM_SOURCE_DIR) + "/models/" + stem + ".yaml"));
}
}  // namespace

TEST(Platform, PublishedFacts) {
  const auto p = cs2();
  EXPECT_EQ(p.cores, 850000);
  EXPECT_DOUBLE_EQ(p.sram_bytes, 40e9);
  EXPECT_DOUBLE_EQ(p.io_bandwidth_Bps(), 12 * 12.5e9);  // 12 x 100 GbE = 1.2 Tb/s
  EXPECT_EQ(p.max_cluster_size, 192);
  const auto p3 = platform::load_platform("cs3", CSXSIM_SOURCE_DIR);
  EXPECT_EQ(p3.max_cluster_size, 2048);
  EXPECT_DOUBLE_EQ(p3.sram_bytes, 44e9);
}

TEST(Platform, UnknownNameAndOverrides) {
  EXPECT_THROW((void)platform::load_platform("cs4", CSXSIM_SOURCE_DIR), InputError);
  auto p = cs2();
  platform::override_parameter(p, "calibration.kernel_overhead_s", "0.002");
  EXPECT_DOUBLE_EQ(p.kernel_overhead_s, 0.002);
  EXPECT_THROW(platform::override_parameter(p, "calibration.kernel_overhed_s", "1"), InputError);
  EXPECT_THROW(platform::override_parameter(p, "calibration.compute_efficiency_max", "1.5"),
               InputError);
  EXPECT_THROW(platform::override_parameter(p, "calibration.kernel_overhead_s", "nan"), InputError);
  platform::override_parameter(p, "calibration.activation_policy", "store_all");
  EXPECT_FALSE(p.recompute());
  EXPECT_EQ(p.gradient_accumulation, platform::GradientAccumulation::kMemoryX);
}

// Physical bounds: efficiency in [0, 1], never falling as tokens grow.
TEST(Efficiency, IsPhysical) {
  for (const auto& name : {"cs2", "cs3"}) {
    const auto p = platform::load_platform(name, CSXSIM_SOURCE_DIR);
    EXPECT_LE(p.compute_efficiency_max, 1.0);
    double last_u = 0;
    for (double width : {64.0, 768.0, 920.0, 921.0, 1024.0, 4096.0, 12288.0, 1e5}) {
      const double u = model::tile_utilization(width, width, p.wafer_grid_side,
                                               p.tile_half_elements);
      EXPECT_GT(u, last_u);  // larger matrices never use the wafer worse
      EXPECT_LE(u, 1.0);
      last_u = u;
      double last = 0;
      for (double tokens = 1; tokens < 1e8; tokens *= 1.7) {
        const double e = platform::compute_efficiency(p, u, tokens);
        EXPECT_GE(e, last);  // more tokens per microbatch never lower efficiency
        EXPECT_LE(e, 1.0);
        EXPECT_GT(e, 0.0);
        last = e;
      }
    }
    // Bandwidths within the published figures.
    EXPECT_LE(p.io_port_bandwidth_Bps, 12.5e9);         // 100 Gb/s ports
    EXPECT_LE(p.swarmx_link_bandwidth_Bps, 12.5e9);     // 100 Gb/s ports
    EXPECT_LE(p.memoryx_bandwidth_Bps, 2 * p.io_bandwidth_Bps());
  }
}

TEST(Efficiency, TileUtilization) {
  // 920 x 920 on a 920-wide grid: one element per core; half utilization at 1 element.
  EXPECT_DOUBLE_EQ(model::tile_utilization(920, 920, 920, 1), 0.5);
  EXPECT_DOUBLE_EQ(model::tile_utilization(1840, 920, 920, 2), 0.5);
  EXPECT_DOUBLE_EQ(model::tile_utilization(920, 920, 920, 0), 1.0);
  // A layer's value is the FLOP-weighted harmonic mean of its matmuls'.
  model::Layer L;
  L.matmuls = {{920, 920, 1e9}, {2760, 920, 1e9}};  // 1 and 3 elements per core: 0.5, 0.75
  EXPECT_DOUBLE_EQ(model::layer_tile_utilization(L, 920, 1), 2e9 / (1e9 / 0.5 + 1e9 / 0.75));
  EXPECT_DOUBLE_EQ(model::layer_tile_utilization(model::Layer{}, 920, 1), 1.0);
}

// Memory is linear in the microbatch, and the largest fitting MBS is the last that fits.
TEST(Memory, LinearAndMaxFitting) {
  const auto p = cs2();
  const auto c = costs_of("llama_7b_msl2048");
  const auto m1 = model::on_chip_memory(c, p, 1, model::Pass::kTrain);
  const auto m2 = model::on_chip_memory(c, p, 2, model::Pass::kTrain);
  EXPECT_NEAR(m2.activations_bytes, 2 * m1.activations_bytes, 1);
  EXPECT_DOUBLE_EQ(m1.total_bytes, m1.activations_bytes + m1.weight_buffers_bytes +
                                       m1.gradients_bytes + m1.workspace_bytes);
  // Checkpoint every 3 of 32 layers: ceil(32/3) + 3 + 2 = 16 boundaries of s*h*2 bytes.
  EXPECT_DOUBLE_EQ(m1.activations_bytes, 16 * 2048.0 * 4096 * 2);
  const auto max = model::max_fitting_micro_batch_size(c, p, model::Pass::kTrain);
  EXPECT_GE(max, 99);  // the ALCF run keeps MBS 99 on one CS-2
  EXPECT_TRUE(model::on_chip_memory(c, p, max, model::Pass::kTrain).fits);
  const auto over = model::on_chip_memory(c, p, max + 1, model::Pass::kTrain);
  EXPECT_FALSE(over.fits);
  EXPECT_NE(over.reason.find("GB"), std::string::npos);
  // Eval keeps less than training.
  EXPECT_LT(model::on_chip_memory(c, p, 8, model::Pass::kEval).total_bytes,
            model::on_chip_memory(c, p, 8, model::Pass::kTrain).total_bytes);
}

TEST(Memory, MemoryXCapacity) {
  const auto p = cs2();  // 4 TB, 16 bytes per parameter -> 250e9 parameters
  EXPECT_TRUE(model::memoryx_check(costs_of("gpt3_175b"), p).fits);
  auto small = p;
  small.memoryx_capacity_bytes = 1e12;
  const auto x = model::memoryx_check(costs_of("gpt3_175b"), small);
  EXPECT_FALSE(x.fits);
  EXPECT_NEAR(x.required_bytes, 16 * 174.6e9, 0.01 * 16 * 174.6e9);
}
