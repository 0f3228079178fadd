// Prediction intervals of predicted rates (formula and sources in the header).
#include "model/prediction_interval.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace csx::model {

double interval_widening(const IntervalBasis& b) {
  if (b.n_family < 0 || b.n_platform < 0)
    throw std::invalid_argument(
        fmt::format("interval counts {} and {}: must be at least 0", b.n_family, b.n_platform));
  return std::sqrt(1.0 + 1.0 / static_cast<double>(b.n_family + 1) +
                   1.0 / static_cast<double>(b.n_platform + 1));
}

double interval_log_half_width(const IntervalBasis& b) {
  if (!std::isfinite(b.log_sd) || b.log_sd < 0)
    throw std::invalid_argument(
        fmt::format("interval log_sd {}: must be finite and >= 0", b.log_sd));
  return kZ80 * b.log_sd * interval_widening(b);
}

PredictionInterval prediction_interval(double step_time_s, double samples_per_s,
                                       const IntervalBasis& b) {
  if (!std::isfinite(step_time_s) || step_time_s <= 0 || !std::isfinite(samples_per_s) ||
      samples_per_s <= 0)
    throw std::invalid_argument(fmt::format(
        "interval of step {} s, {} samples/s: both must be positive", step_time_s, samples_per_s));
  const double f = std::exp(interval_log_half_width(b));
  return {samples_per_s / f, samples_per_s * f, step_time_s / f, step_time_s * f};
}

double input_rate_factor(double input_log_sd) {
  if (!std::isfinite(input_log_sd) || input_log_sd < 0)
    throw std::invalid_argument(
        fmt::format("input_log_sd {}: must be finite and >= 0", input_log_sd));
  return std::exp(kZ80 * input_log_sd);
}

PredictionInterval input_fed_interval(double step_time_s, double samples_per_s, double input_s,
                                      double wait_s, const IntervalBasis& b) {
  const PredictionInterval plain = prediction_interval(step_time_s, samples_per_s, b);
  if (!std::isfinite(input_s) || input_s < 0 || !std::isfinite(wait_s) || wait_s < 0 ||
      wait_s > step_time_s)
    throw std::invalid_argument(fmt::format(
        "input time {} s and wait {} s of a step of {} s: need input >= 0 and 0 <= wait <= step",
        input_s, wait_s, step_time_s));
  const double f = plain.step_time_s_high / step_time_s;
  const double g = input_rate_factor(b.input_log_sd);
  const double compute_s = step_time_s - wait_s;
  const double low = std::min(step_time_s, std::max(input_s / g, compute_s / f));
  const double high = std::max(step_time_s, std::max(input_s * g, compute_s * f));
  return {samples_per_s * step_time_s / high, samples_per_s * step_time_s / low, low, high};
}

std::string interval_family(const std::string& model_name) {
  return model_name.substr(0, model_name.find('/'));
}

}  // namespace csx::model
