// The calibration parameters `csxsim calibrate` fits to the measured runs, and their bounds
// (docs/calibration.md#calibration): the platform loader marks their keys "(fitted)", the fit
// varies them.
#pragma once

#include <string>
#include <vector>

namespace csx::platform {

// A fitted parameter: the platform key ("calibration.compute_efficiency"), the same value on
// every platform, within [low, high].
struct FittedParameter {
  std::string key;
  double low = 0, high = 0;
};

// The fitted parameters and their bounds (their physical meaning and bounds:
// docs/model.md#compute-model): compute_efficiency 0.2-0.8, step_overhead_s 0.01-0.5 s,
// reduce_cycles_per_output 0-2 cycles.
[[nodiscard]] const std::vector<FittedParameter>& fitted_parameters();

// True when `key` ("section.key") is one of fitted_parameters().
[[nodiscard]] bool is_fitted(const std::string& key);

}  // namespace csx::platform
