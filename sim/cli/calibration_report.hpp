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

}  // namespace csx::cli
