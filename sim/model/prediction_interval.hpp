// The 80 % prediction interval of a predicted rate (docs/calibration.md#prediction-intervals).
//
// In log space the error of a prediction ln(predicted / measured) is taken as normal with the
// standard deviation `log_sd` of the grouped (leave-one-model-out) cross-validation's
// out-of-sample residuals (docs/calibration.md#accuracy; platform key
// calibration.prediction_log_sd). The interval is
//   rate x exp(-/+ z x log_sd x w),  z = 1.2816 (two-sided 80 % of a standard normal),
//   w = sqrt(1 + 1 / (n_family + 1) + 1 / (n_platform + 1)),
// n_family and n_platform being the calibration runs of the model's Model Zoo family and of the
// platform. w follows the textbook prediction interval of a new observation, sd x sqrt(1 + 1/n)
// about a mean fitted to n points (Montgomery, Peck & Vining, "Introduction to Linear
// Regression Analysis", "Prediction of new observations"), with one 1/n term per fitted group
// (the family's level and the platform's); the +1 keeps a group never calibrated finite
// (w = sqrt(3), not infinite).
// Step times take the inverse: the low rate is the high step time.
#pragma once

#include <cstdint>
#include <string>

namespace csx::model {

// Two-sided 80 % of the standard normal: its 0.9 quantile, Phi^-1(0.9) = 1.28155 (Abramowitz &
// Stegun, "Handbook of Mathematical Functions", 26.2; Python's statistics.NormalDist).
inline constexpr double kZ80 = 1.2816;

// What an interval is derived from.
struct IntervalBasis {
  double log_sd = 0;            // SD of out-of-sample ln(predicted / measured), >= 0
  std::int64_t n_family = 0;    // calibration runs of the model's family, >= 0
  std::int64_t n_platform = 0;  // calibration runs on the platform, >= 0
  // SD of ln(input rate), >= 0, when the rate is the platform's measured one (0: the user's,
  // taken as exact).
  double input_log_sd = 0;
};

// A rate's interval and the step time's (seconds): low <= value <= high.
struct PredictionInterval {
  double samples_per_s_low = 0, samples_per_s_high = 0;
  double step_time_s_low = 0, step_time_s_high = 0;
};

// w = sqrt(1 + 1/(n_family + 1) + 1/(n_platform + 1)). Throws std::invalid_argument for a
// negative count.
[[nodiscard]] double interval_widening(const IntervalBasis& basis);

// z x log_sd x w: the half width of the interval in log space. Throws std::invalid_argument for
// a negative or non-finite log_sd or a negative count.
[[nodiscard]] double interval_log_half_width(const IntervalBasis& basis);

// The interval of a step time (seconds, > 0) and of its rate samples_per_s (> 0). Throws
// std::invalid_argument for a non-positive or non-finite value or a bad basis.
[[nodiscard]] PredictionInterval prediction_interval(double step_time_s, double samples_per_s,
                                                     const IntervalBasis& basis);

// exp(z x input_log_sd): the factor an input rate's interval spans each way (1 for a rate given).
// Throws std::invalid_argument for a negative or non-finite input_log_sd.
[[nodiscard]] double input_rate_factor(double input_log_sd);

// The interval of a step whose input workers were simulated (docs/model.md#input-pipeline). The
// step is taken as max(input time, compute step), the compute step being step_time_s - wait_s
// scaled by the interval's factor: an input-bound step cannot get faster than its input. A rate
// the user gives is exact (input time input_s); one from the platform (basis.input_log_sd > 0)
// spans input_s x exp(-/+ z x input_log_sd). `input_s` is the
// input workers' time for the fullest system's batch and `wait_s` the time the system waited for
// them in the step (seconds, 0 <= wait_s <= step_time_s, input_s >= 0). Throws
// std::invalid_argument as prediction_interval, for input_s or wait_s out of range, and for a
// negative or non-finite basis.input_log_sd.
[[nodiscard]] PredictionInterval input_fed_interval(double step_time_s, double samples_per_s,
                                                    double input_s, double wait_s,
                                                    const IntervalBasis& basis);

// The family a Model Zoo model name counts under: the part before the first '/'
// ("bert/classifier" -> "bert"; "gpt3" -> "gpt3").
[[nodiscard]] std::string interval_family(const std::string& model_name);

}  // namespace csx::model
