// `csxsim calibrate` (and `validate --cross-validate`) as a typed request and its outcome
// (docs/calibration.md#calibration): the fit of the calibration parameters to the measured runs,
// its grouped cross-validation, the platform files' check and update. The CLI prints the
// outcome (cli/calibration_report.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/calibration_runs.hpp"
#include "app/cross_validation.hpp"
#include "app/option_table.hpp"

namespace csx::app {

struct CalibrateRequest {
  std::string reference;  // the fit data (default_reference() unless --reference)
  bool cross_validate = false;
  std::string group = "model";  // model, family or run
  bool write = false;           // write the fit into platforms/*.yaml (cross-validates by model)
  bool check = false;           // compare platforms/*.yaml with a fresh fit
  // What is fitted: calibration_parameters(), then each --free KEY:LOW:HIGH.
  std::vector<CalibrationParameter> parameters;
  RefitProgress progress;  // told before each cross-validation refit (the CLI's status line)
};

// The request of the options given to `calibrate`. Throws InputError for --write with --check,
// --group without --cross-validate or not model, family or run (with a did-you-mean), a
// --reference that is no file, a malformed --free (not KEY:LOW:HIGH, KEY no calibration key of
// platforms/cs2.yaml or fitted already, LOW not below HIGH), and --free with --write or --check.
[[nodiscard]] CalibrateRequest read_calibrate_request(const GivenOptions& given);

struct CalibrationOutcome {
  std::shared_ptr<CalibrationRuns> runs;  // the measured runs and the parameters
  std::vector<double> in_files;           // the parameters' values in platforms/*.yaml
  std::vector<double> best;               // the fit
  double in_sample_mape_pct = 0, in_sample_largest_pct = 0;
  // check: what differs between platforms/*.yaml and the fit (empty: they match).
  std::vector<std::string> differences;
  // cross_validate or write: the out-of-sample predictions, grouped by `how`, and the RMS of
  // their log residuals (prediction_log_sd).
  std::optional<CrossValidation> cv;
  std::string how;
  double rms_log = 0;
  std::string written;  // write: the date stamped into the platform files
};

// Fits (NLopt), then what the request asks: the comparison with the platform files, the
// cross-validation, the writing of the platform files. Throws InputError for a reference with
// fewer than two current-release runs or with every run in one group (of one model: before the
// fit), else as CalibrationRuns::simulate.
[[nodiscard]] CalibrationOutcome execute_calibration(const CalibrateRequest& request);

}  // namespace csx::app
