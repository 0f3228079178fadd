// The runs the calibration is fitted to: the current-release measured runs of a reference file
// (its `measurements` list), simulated as `csxsim validate --measurements-only` simulates them,
// for a vector of calibration values (docs/calibration.md#calibration).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "app/validation.hpp"
#include "platform/fitted_parameters.hpp"

namespace csx::app {

// A fitted parameter (platform/fitted_parameters.hpp).
using CalibrationParameter = platform::FittedParameter;

// platform::fitted_parameters(), to be extended (calibrate --free).
[[nodiscard]] std::vector<CalibrationParameter> calibration_parameters();

// One current-release measured run.
struct CalibrationRun {
  Entry entry;
  std::string family;  // the model's Model Zoo family (ModelSpec::name), after a first simulation
};

// A run simulated at one parameter vector.
struct SimulatedRun {
  double samples_per_s = 0;  // simulated
  std::string bound;         // what bounds the simulated step
};

class CalibrationRuns {
 public:
  // Reads the reference's current-release runs (sorted by name). Throws InputError as
  // read_reference does.
  CalibrationRuns(const std::string& reference, const std::string& data_dir,
                  std::vector<CalibrationParameter> parameters);

  [[nodiscard]] const std::vector<CalibrationRun>& runs() const { return runs_; }
  [[nodiscard]] const std::vector<CalibrationParameter>& parameters() const { return params_; }
  [[nodiscard]] const std::string& reference() const { return setup_.reference; }

  // The runs `which` (indices into runs()) simulated at x (values in parameters() order), in
  // `which`'s order, as check_measurement() simulates them with x as platform overrides. Runs not
  // simulated at x before are shared among forked worker processes, one per CPU; a vector equal
  // to an earlier one in 10 significant digits (the overrides' text) is the same vector. Throws
  // InputError when a run refuses its input (an override out of its range, no micro_batch_size
  // fits), std::runtime_error when a worker fails, std::out_of_range for an index past runs().
  [[nodiscard]] std::vector<SimulatedRun> simulate(const std::vector<double>& x,
                                                   const std::vector<std::size_t>& which);

  // Parameter vectors simulated so far (some of their runs at least).
  [[nodiscard]] std::size_t simulations() const { return cache_.size(); }

 private:
  [[nodiscard]] std::vector<std::string> override_values(const std::vector<double>& x) const;
  // The validation setup with the parameters at `values` (override_values()).
  [[nodiscard]] ValidationSetup setup_for(const std::vector<std::string>& values) const;

  ValidationSetup setup_;
  std::vector<CalibrationParameter> params_;
  std::vector<CalibrationRun> runs_;
  std::map<std::vector<std::string>, std::map<std::size_t, SimulatedRun>> cache_;
};

}  // namespace csx::app
