// The calibration fit's pieces: the soft_l1 loss and robust cost by hand, the bounded fit (NLopt's
// BOBYQA) on residual functions whose optimum is worked out by hand, and the platform files' stamp
// and line edits on copies of the shipped files.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "app/calibration_files.hpp"
#include "app/robust_fit.hpp"
#include "common/errors.hpp"
#include "temp_files.hpp"

using namespace csx;

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(RobustFit, SoftL1ByHand) {
  // rho(z) = 2 (sqrt(1 + z) - 1): rho(0) = 0, rho(3) = 2 (2 - 1) = 2, rho(0.21) = 2 (1.1 - 1).
  EXPECT_DOUBLE_EQ(app::soft_l1(0), 0);
  EXPECT_DOUBLE_EQ(app::soft_l1(3), 2);
  EXPECT_NEAR(app::soft_l1(0.21), 0.2, 1e-12);
  // r = 0.1, -0.3 at scale 0.1: z = 1 and 9; 0.5 x 0.01 x (2 (sqrt 2 - 1) + 2 (sqrt 10 - 1))
  //   = 0.005 x (0.828427125 + 4.324555320) = 0.025764912.
  EXPECT_NEAR(app::robust_cost({0.1, -0.3}, 0.1), 0.025764912, 1e-9);
  // Far below the scale it is least squares: 0.5 (1e-4^2 + 2e-4^2) = 2.5e-8.
  EXPECT_NEAR(app::robust_cost({1e-4, 2e-4}, 0.1), 2.5e-8, 1e-12);
}

TEST(RobustFit, ExactLine) {
  // y = 2 + 0.5 t at t = 0..3: the residuals a + b t - y vanish at (2, 0.5), whatever the loss.
  const auto r = app::fit_robust(([](const std::vector<double>& x) {
                                   std::vector<double> out;
                                   for (int t = 0; t < 4; ++t)
                                     out.push_back(x[0] + x[1] * t - (2 + 0.5 * t));
                                   return out;
                                 }),
                                 {1, 0}, {0, -1}, {5, 1});
  EXPECT_NEAR(r.x[0], 2, 2e-3);
  EXPECT_NEAR(r.x[1], 0.5, 1e-3);
  EXPECT_LT(r.cost, 1e-6);
  EXPECT_GT(r.evaluations, 0);
}

TEST(RobustFit, OutlierCountsLinearly) {
  // A level x fitted to 0, 0, 0, 0, 1 at scale 0.1. Least squares gives the mean 0.2; soft_l1's
  // stationarity, 4 x / sqrt(1 + 100 x^2) = (1 - x) / sqrt(1 + 100 (1 - x)^2), holds at
  // x = 0.025676 (bisection; scipy's least_squares with loss="soft_l1" gives the same).
  const auto r = app::fit_robust(([](const std::vector<double>& x) {
                                   return std::vector<double>{x[0], x[0], x[0], x[0], x[0] - 1};
                                 }),
                                 {0.5}, {-1}, {1});
  EXPECT_NEAR(r.x[0], 0.025676, 1e-4);
  // cost = 0.005 (4 rho(100 x^2) + rho(100 (1 - x)^2)) = 0.0892417.
  EXPECT_NEAR(r.cost, 0.0892417, 1e-6);
}

TEST(RobustFit, FlatDirectionEndsAtTheOptimumFromEitherSide) {
  // A run the model cannot fit (a constant residual 0.1) and a direction a hundred times flatter
  // than the other: r = (0.1, x0 - 1, 0.01 (x1 - 0.3)). The optimum is (1, 0.3) by hand, and the
  // fit reaches it from either side of x1. (With NLopt's relative cost stop at 1e-6 as well, the
  // fit from x1 = 0 ended at 0.023.)
  const auto fit = [](double x1) {
    return app::fit_robust(([](const std::vector<double>& x) {
                             return std::vector<double>{0.1, x[0] - 1, 1e-2 * (x[1] - 0.3)};
                           }),
                           {0.5, x1}, {0, 0}, {2, 1}, {.f_scale = 0.1, .initial_step = 0.25});
  };
  for (const double start : {0.0, 0.9}) {
    const auto r = fit(start);
    EXPECT_NEAR(r.x[0], 1, 1e-4) << "from x1 = " << start;
    EXPECT_NEAR(r.x[1], 0.3, 1e-3) << "from x1 = " << start;
  }
}

TEST(RobustFit, StopsAtTheBound) {
  // r = x - 3 with 0 <= x <= 2: the cost falls all the way to the upper bound.
  const auto r =
      app::fit_robust(([](const std::vector<double>& x) { return std::vector<double>{x[0] - 3}; }),
                      {0.5}, {0}, {2});
  EXPECT_NEAR(r.x[0], 2, 1e-6);
}

TEST(RobustFit, RefusesBadBoundsAndPassesErrorsOn) {
  const auto zero = [](const std::vector<double>&) { return std::vector<double>{0}; };
  EXPECT_THROW((void)app::fit_robust(zero, {1}, {2}, {1}), std::invalid_argument);
  EXPECT_THROW((void)app::fit_robust(zero, {1, 2}, {0}, {3}), std::invalid_argument);
  const auto refuses = [](const std::vector<double>&) -> std::vector<double> {
    throw InputError("the simulator refused");
  };
  try {
    (void)app::fit_robust(refuses, {1}, {0}, {2});
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "the simulator refused");
  }
}

TEST(CalibrationFiles, HashOfKnownText) {
  // SHA-256("abc") = ba7816bf 8f01cfea 414140de ... (FIPS 180-4, appendix B.1).
  const csx::testing::TempFiles tmp("csxsim_hash_");
  EXPECT_EQ(app::data_hash(tmp.write("abc.txt", "abc")), "ba7816bf8f01cfea");
}

TEST(CalibrationFiles, WriteThenCheck) {
  const csx::testing::TempFiles tmp("csxsim_calfiles_");
  std::string dir;
  for (const auto* p : {"cs2", "cs3"}) {
    const auto path = tmp.write(std::string("platforms/") + p + ".yaml",
                                read(std::string(CSXSIM_SOURCE_DIR) + "/platforms/" + p + ".yaml"));
    dir = std::filesystem::path(path).parent_path().parent_path().string();
  }
  const auto data = tmp.write("measurements.yaml", "measurements: []\n");
  const auto params = app::calibration_parameters();
  const std::vector<double> best{0.31234, 0.1111, 0.50049};
  // The shipped files carry another data's stamp and values.
  EXPECT_FALSE(app::calibration_differences(dir, params, best, data).empty());
  app::write_calibration(dir, params, best, 0.25, data, "2026-01-02");
  EXPECT_TRUE(app::calibration_differences(dir, params, best, data).empty());
  for (const auto* p : {"cs2", "cs3"}) {
    // 4 significant digits, the other keys and the comments kept.
    EXPECT_DOUBLE_EQ(app::platform_value(dir, p, "calibration.compute_efficiency"), 0.3123);
    EXPECT_DOUBLE_EQ(app::platform_value(dir, p, "calibration.step_overhead_s"), 0.1111);
    EXPECT_DOUBLE_EQ(app::platform_value(dir, p, "calibration.reduce_cycles_per_output"), 0.5005);
    EXPECT_DOUBLE_EQ(app::platform_value(dir, p, "calibration.prediction_log_sd"), 0.25);
    const auto text = read(dir + "/platforms/" + p + ".yaml");
    const auto shipped = read(std::string(CSXSIM_SOURCE_DIR) + "/platforms/" + p + ".yaml");
    EXPECT_NE(text.find(app::stamp_prefix(data) + "; 2026-01-02)."), std::string::npos);
    EXPECT_EQ(std::count(text.begin(), text.end(), '#'),
              std::count(shipped.begin(), shipped.end(), '#'));
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'),
              std::count(shipped.begin(), shipped.end(), '\n'));
  }
  // A value 1 % off is a difference (the tolerance is 0.5 %).
  auto off = best;
  off[1] *= 1.01;
  const auto bad = app::calibration_differences(dir, params, off, data);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_NE(bad[0].find("calibration.step_overhead_s"), std::string::npos);
}
