// The calibration fit as csxsim prints it (docs/calibration.md#calibration): `csxsim calibrate`
// and `csxsim validate --cross-validate`.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace csx::cli {

struct CalibrateSettings {
  std::string reference;  // the fit data
  bool cross_validate = false;
  std::string group = "model";    // model, family or run
  bool write = false;             // write the fit into platforms/*.yaml (cross-validates by model)
  bool check = false;             // compare platforms/*.yaml with a fresh fit
  std::vector<std::string> free;  // KEY:LOW:HIGH, calibration keys fitted besides the three
};

// Fits, prints the fitted values and the in-sample error to `out`, then what the settings ask:
// the comparison (messages on stderr; returns 1 when the files differ), the cross-validation
// table with its MAPE, RMS and interval coverage, the writing of the platform files. Returns 0
// otherwise. Throws InputError for a malformed --free, --free with --write or --check, a
// reference with fewer than two current-release runs or with every run in one group.
int run_calibration(const CalibrateSettings& settings, std::FILE* out);

}  // namespace csx::cli
