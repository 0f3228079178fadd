// Prediction intervals: one interval worked out by hand, the widening for families and
// platforms never calibrated, an input rate's bound, and the calibration counts read from a
// fit-data file.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "common/errors.hpp"
#include "input/calibration_counts.hpp"
#include "input/platform_loader.hpp"
#include "model/prediction_interval.hpp"

using namespace csx;

TEST(PredictionInterval, OneIntervalByHand) {
  // sd 0.15, 4 runs of the family, 13 on the platform:
  //   w = sqrt(1 + 1/5 + 1/14) = sqrt(1.271428571) = 1.127576415
  //   z x sd x w = 1.2816 x 0.15 x 1.127576415 = 0.216765290
  //   exp(0.216765290) = 1.242052546
  //   46.59 samples/s: 46.59 / 1.242052546 = 37.51049 to 46.59 x 1.242052546 = 57.86723
  //   step 0.5 s: 0.5 / 1.242052546 = 0.4025594 to 0.5 x 1.242052546 = 0.6210263
  const model::IntervalBasis b{0.15, 4, 13};
  EXPECT_NEAR(model::interval_widening(b), 1.127576415, 1e-9);
  EXPECT_NEAR(model::interval_log_half_width(b), 0.216765290, 1e-9);
  const auto iv = model::prediction_interval(0.5, 46.59, b);
  EXPECT_NEAR(iv.samples_per_s_low, 37.51049, 1e-5);
  EXPECT_NEAR(iv.samples_per_s_high, 57.86723, 1e-5);
  EXPECT_NEAR(iv.step_time_s_low, 0.4025594, 1e-7);
  EXPECT_NEAR(iv.step_time_s_high, 0.6210263, 1e-7);
}

TEST(PredictionInterval, WiderWhereFewerRunsCalibrate) {
  // Never calibrated: w = sqrt(1 + 1 + 1) = 1.732050808; exp(1.2816 x 0.15 x 1.732050808) =
  // exp(0.332970) = 1.395105.
  const model::IntervalBasis none{0.15, 0, 0};
  EXPECT_NEAR(model::interval_widening(none), std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(std::exp(model::interval_log_half_width(none)), 1.395105, 1e-6);
  const model::IntervalBasis family{0.15, 0, 13}, both{0.15, 4, 13};
  EXPECT_GT(model::interval_log_half_width(none), model::interval_log_half_width(family));
  EXPECT_GT(model::interval_log_half_width(family), model::interval_log_half_width(both));
  // Zero spread: the interval collapses onto the prediction.
  const auto iv = model::prediction_interval(2.0, 10.0, {0, 0, 0});
  EXPECT_DOUBLE_EQ(iv.samples_per_s_low, 10.0);
  EXPECT_DOUBLE_EQ(iv.step_time_s_high, 2.0);
  EXPECT_THROW((void)model::prediction_interval(0, 10, both), std::invalid_argument);
  EXPECT_THROW((void)model::interval_widening({0.15, -1, 0}), std::invalid_argument);
}

TEST(PredictionInterval, AnInputRateGivenBoundsTheFastEnd) {
  // The basis of OneIntervalByHand: factor 1.242052546.
  const model::IntervalBasis b{0.15, 4, 13};
  // Input-bound: a 2 s step of 10 samples/s whose input takes 2 s, 1.5 s of it waited (compute
  // 0.5 s): a faster compute waits longer (low end 2 s, 10/s); a slower one, 0.5 x 1.242 =
  // 0.621 s, still waits: the interval is the prediction.
  auto iv = model::input_fed_interval(2.0, 10.0, 2.0, 1.5, b);
  EXPECT_DOUBLE_EQ(iv.step_time_s_low, 2.0);
  EXPECT_DOUBLE_EQ(iv.step_time_s_high, 2.0);
  EXPECT_DOUBLE_EQ(iv.samples_per_s_high, 10.0);
  // Compute-bound with a 1.8 s input: the slow end as without input, 2 x 1.242052546 =
  // 2.484105 s (8.051189/s); the fast end stops at the input, 1.8 s (not 2 / 1.242 = 1.610 s):
  // 10 x 2 / 1.8 = 11.111111/s.
  iv = model::input_fed_interval(2.0, 10.0, 1.8, 0.0, b);
  EXPECT_NEAR(iv.step_time_s_high, 2.484105, 1e-6);
  EXPECT_NEAR(iv.samples_per_s_low, 8.051189, 1e-6);
  EXPECT_DOUBLE_EQ(iv.step_time_s_low, 1.8);
  EXPECT_NEAR(iv.samples_per_s_high, 11.111111, 1e-6);
  // A fast input (0.1 s) changes nothing: 2 / 1.242052546 = 1.610238 s.
  iv = model::input_fed_interval(2.0, 10.0, 0.1, 0.0, b);
  EXPECT_NEAR(iv.step_time_s_low, 1.610238, 1e-6);
  EXPECT_THROW((void)model::input_fed_interval(2.0, 10.0, 1.0, 2.5, b), std::invalid_argument);
}

TEST(PredictionInterval, APlatformsInputRateWidensTheInputSide) {
  // The basis of OneIntervalByHand with an input rate of SD 0.14 in ln (a platform's measured
  // rate): g = exp(1.2816 x 0.14) = exp(0.179424) = 1.196528. The input-bound step of
  // AnInputRateGivenBoundsTheFastEnd (2 s, input 2 s, 1.5 s waited) now spans 2 / 1.196528 =
  // 1.671503 s to 2 x 1.196528 = 2.393056 s: 10 x 2 / 2.393056 = 8.357515 to 11.965280/s.
  model::IntervalBasis b{0.15, 4, 13};
  b.input_log_sd = 0.14;
  const auto iv = model::input_fed_interval(2.0, 10.0, 2.0, 1.5, b);
  EXPECT_NEAR(iv.step_time_s_low, 1.671503, 1e-6);
  EXPECT_NEAR(iv.step_time_s_high, 2.393056, 1e-6);
  EXPECT_NEAR(iv.samples_per_s_low, 8.357515, 1e-6);
  EXPECT_NEAR(iv.samples_per_s_high, 11.965280, 1e-6);
  b.input_log_sd = -0.1;
  EXPECT_THROW((void)model::input_fed_interval(2.0, 10.0, 2.0, 1.5, b), std::invalid_argument);
}

TEST(PredictionInterval, FamilyIsTheModelZooNameBeforeTheSlash) {
  EXPECT_EQ(model::interval_family("bert/classifier"), "bert");
  EXPECT_EQ(model::interval_family("gpt3"), "gpt3");
}

TEST(PredictionInterval, PlatformFilesCarryTheSpread) {
  for (const char* name : {"cs2", "cs3"}) {
    const auto p = platform::load_platform(name, CSXSIM_SOURCE_DIR);
    EXPECT_GE(p.prediction_log_sd, 0);
    EXPECT_LE(p.prediction_log_sd, 2);
  }
}

TEST(CalibrationCounts, CountsEachFamilyAndPlatform) {
  namespace fs = std::filesystem;
  const auto file =
      (fs::temp_directory_path() / ("csxsim_counts_" + std::to_string(::getpid()) + ".yaml"))
          .string();
  {
    std::ofstream f(file);
    f << "measurements:\n"
         "- {model: models/bert_large_msl128.yaml, platform: cs2}\n"
         "- {model: models/bert_large_msl512.yaml, platform: cs2}\n"
         "- {model: models/llama2_7b.yaml, platform: cs3}\n"
         "- {model: ../absent/params.yaml, platform: cs3}\n"  // absent Model Zoo file: skipped
         "older_measurements:\n"
         "- {model: models/gpt3_xl.yaml, platform: cs2}\n";  // not the fit's: not counted
  }
  const auto c = io::read_calibration_counts(file, CSXSIM_SOURCE_DIR);
  EXPECT_EQ(c.runs_of_family("bert"), 2);
  EXPECT_EQ(c.runs_of_family("llama"), 1);
  EXPECT_EQ(c.runs_of_family("gpt3"), 0);
  EXPECT_EQ(c.runs_on_platform("cs2"), 2);
  EXPECT_EQ(c.runs_on_platform("cs3"), 1);
  {
    std::ofstream f(file);
    f << "measurements:\n- {platform: cs2}\n";
  }
  EXPECT_THROW((void)io::read_calibration_counts(file, CSXSIM_SOURCE_DIR), InputError);
  {
    std::ofstream f(file);
    f << "measurements:\n- not an entry\n";
  }
  EXPECT_THROW((void)io::read_calibration_counts(file, CSXSIM_SOURCE_DIR), InputError);
  fs::remove(file);
}
