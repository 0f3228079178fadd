// How many current-release calibration runs each Model Zoo family and each platform has: the
// `measurements` list of platforms/calibration/measurements.yaml (docs/calibration.md#accuracy).
// The prediction intervals widen where these are few (model/prediction_interval.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace csx::io {

// The lists the fit data holds (docs/calibration.md#accuracy); a file with another top-level key
// is refused, by `validate` and by every command that reads these counts.
inline const std::vector<std::string> kReferenceLists{
    "measurements",       "input_bound_measurements",
    "older_measurements", "auto_decisions",
    "memory_facts",       "preferences"};

struct CalibrationCounts {
  std::string file;                              // the fit data they were counted in
  std::map<std::string, std::int64_t> family;    // model::interval_family(name) -> runs
  std::map<std::string, std::int64_t> platform;  // platform name (cs2, cs3) -> runs

  [[nodiscard]] std::int64_t runs_of_family(const std::string& name) const;
  [[nodiscard]] std::int64_t runs_on_platform(const std::string& name) const;
};

// Counts the `measurements` entries of `file`: each entry's family is that of its `model` file
// (a path relative to `data_dir`, else to `file`; a Model Zoo file outside the repository that
// is absent is skipped, as `validate` skips it). Throws InputError naming the file, entry and key
// for a missing or unreadable file, a top-level key not in kReferenceLists (with a did-you-mean),
// no `measurements` list, a `measurements` that is not a list, an entry without
// `model` or `platform`, or a model file csxsim cannot read.
[[nodiscard]] CalibrationCounts read_calibration_counts(const std::string& file,
                                                        const std::string& data_dir);

// The counts of `data_dir`'s fit data, platforms/calibration/measurements.yaml, read once per
// process. Throws as read_calibration_counts.
[[nodiscard]] const CalibrationCounts& calibration_counts(const std::string& data_dir);

}  // namespace csx::io
