// Prediction intervals of predicted rates (formula and sources in the header).
#include "model/prediction_interval.hpp"

#include <fmt/format.h>
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

std::string interval_family(const std::string& model_name) {
  return model_name.substr(0, model_name.find('/'));
}

}  // namespace csx::model
