// The calibration fit as csxsim prints it (docs/calibration.md#calibration): `csxsim calibrate`
// and `csxsim validate --cross-validate`.
#pragma once

#include <cstdio>

#include "app/calibrate_request.hpp"

namespace csx::cli {

// The fitted values and the in-sample error to `out`, then what the request asked: the
// comparison with the platform files (the differences on stderr; returns 1 when there are any),
// the cross-validation table with its MAPE, RMS and interval coverage, the platform files
// written. Returns 0 otherwise.
int print_calibration(std::FILE* out, const app::CalibrateRequest& request,
                      const app::CalibrationOutcome& outcome);

// Fits as `request` asks (app::execute_calibration); while it cross-validates, a status line on
// standard error when that is a terminal ("refit 3 of 11, without llama2_7b.yaml"), erased at
// the end. Throws as app::execute_calibration.
[[nodiscard]] app::CalibrationOutcome calibrate_with_status(app::CalibrateRequest request);

}  // namespace csx::cli
