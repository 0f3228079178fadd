// The fitted calibration parameters and their bounds.
#include "platform/fitted_parameters.hpp"

#include <algorithm>

namespace csx::platform {

const std::vector<FittedParameter>& fitted_parameters() {
  static const std::vector<FittedParameter> parameters{
      {"calibration.compute_efficiency", 0.2, 0.8},
      {"calibration.step_overhead_s", 0.01, 0.5},
      {"calibration.reduce_cycles_per_output", 0.0, 2.0}};
  return parameters;
}

bool is_fitted(const std::string& key) {
  const auto& all = fitted_parameters();
  return std::any_of(all.begin(), all.end(), [&](const auto& p) { return p.key == key; });
}

}  // namespace csx::platform
