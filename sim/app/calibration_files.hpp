// The calibration's values in the platform files (platforms/cs2.yaml, platforms/cs3.yaml): read,
// compared with a fit, and written back with a stamp naming the fit data's SHA-256 and the date
// (docs/calibration.md#calibration).
#pragma once

#include <string>
#include <vector>

#include "app/calibration_runs.hpp"

namespace csx::app {

// The platforms every fitted value is shared by.
inline const std::vector<std::string> kCalibratedPlatforms{"cs2", "cs3"};

// The value of `key` ("calibration.compute_efficiency") in DATA_DIR/platforms/PLATFORM.yaml.
// Throws InputError naming the file and key when it is absent or not a number.
[[nodiscard]] double platform_value(const std::string& data_dir, const std::string& platform,
                                    const std::string& key);

// The first 16 hex digits of the SHA-256 (FIPS 180-4, by OpenSSL) of the file's bytes. Throws
// InputError when it cannot be read.
[[nodiscard]] std::string data_hash(const std::string& reference);

// The stamp line up to its date:
// "# Fitted by tools/calibrate --write from platforms/calibration/measurements.yaml (sha256 H".
[[nodiscard]] std::string stamp_prefix(const std::string& reference);

// Why the platform files are not the fit `best` of `reference`: a fitted value off by more than
// 0.5 % of the fit's (the optimizer's tolerance), prediction_log_sd differing between the files,
// or a file without the stamp of this data. Empty when they are.
[[nodiscard]] std::vector<std::string> calibration_differences(
    const std::string& data_dir, const std::vector<CalibrationParameter>& params,
    const std::vector<double>& best, const std::string& reference);

// Writes `best` (4 significant digits) and prediction_log_sd = `log_sd` into every calibrated
// platform file, each value's line edited in place (comments kept), and the stamp with `today`
// (YYYY-MM-DD) above `calibration:`; both files are written whole, or neither. Throws InputError
// when a key is not on exactly one line of a file, or a file cannot be written.
void write_calibration(const std::string& data_dir, const std::vector<CalibrationParameter>& params,
                       const std::vector<double>& best, double log_sd, const std::string& reference,
                       const std::string& today);

}  // namespace csx::app
