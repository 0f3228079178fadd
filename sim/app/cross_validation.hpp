// The calibration fit of a reference's current-release runs and its grouped cross-validation
// (docs/calibration.md#calibration and #accuracy): each group of runs left out, the rest refitted
// from the full fit, the left-out runs predicted; the coverage of the out-of-sample 80 %
// intervals.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "app/calibration_runs.hpp"
#include "app/robust_fit.hpp"

namespace csx::app {

// The run-to-run noise of one config, 10 % (docs/calibration.md#calibration): ln residuals beyond
// it count linearly in the fit (soft_l1's scale), so one model's outlying runs cannot pull every
// other prediction.
inline constexpr double kRunNoise = 0.1;

// The values minimising the soft_l1 cost of ln(simulated / measured) over the runs `members`
// (indices into runs.runs()) within the parameters' bounds, from x0 with a first step of
// `initial_step` of each range (fit_robust's other settings, f_scale kRunNoise). Throws
// InputError when the fit stops at its evaluation budget unconverged, else as
// CalibrationRuns::simulate.
[[nodiscard]] std::vector<double> fit_calibration(CalibrationRuns& runs,
                                                  const std::vector<std::size_t>& members,
                                                  const std::vector<double>& x0,
                                                  double initial_step);

// Where the full fit starts: the middle of each parameter's bounds, so that the fit is a function
// of the data alone (not of the values written into platforms/*.yaml).
[[nodiscard]] std::vector<double> fit_start(const std::vector<CalibrationParameter>& parameters);
// The full fit's first step: a quarter of each range.
inline constexpr double kFullFitStep = 0.25;
// A refit starts from the full fit with a first step of 2 % of each range, and stops on the
// parameters (fit_robust's xtol): a tenth of that tolerance gives the same out-of-sample table.
inline constexpr double kRefitStep = 0.02;

// ln(simulated / measured) of run i.
[[nodiscard]] double log_residual(const CalibrationRuns& runs, const SimulatedRun& s,
                                  std::size_t i);

// What leaves a run out with others: "model" (its model file), "family" (its Model Zoo family
// before any '/') or "run" (itself).
[[nodiscard]] std::string group_of(const CalibrationRun& run, const std::string& how);

// Throws InputError when leaving out a group `how` ("model", "family" or "run") would leave
// nothing to fit: every run is of one model (for "model" and "family") or has one name (for
// "run"). Known before any simulation, so such a reference is refused before the full fit; one of
// several models of one family is refused by cross_validate_runs, once the simulations have named
// the families.
void check_groups(const CalibrationRuns& runs, const std::string& how);

// A run predicted by the fit without its group.
struct Prediction {
  double predicted = 0, measured = 0;  // samples/s
  std::string bound;
  std::vector<double> refit;  // the values fitted without the group
};

struct CrossValidation {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> groups;  // in first-run order
  std::vector<Prediction> predictions;                                   // per run
};

// Told before each refit: how many are done, how many there are, the group left out.
using RefitProgress =
    std::function<void(std::size_t done, std::size_t total, const std::string& group)>;

// Refits without each group in turn, from `best`, telling `progress` (when set) before each.
// Throws InputError when every run is of one group (nothing left to fit), else as
// CalibrationRuns::simulate.
[[nodiscard]] CrossValidation cross_validate_runs(CalibrationRuns& runs,
                                                  const std::vector<double>& best,
                                                  const std::string& how,
                                                  const RefitProgress& progress = {});

// sqrt(mean ln(predicted / measured)^2) over the predictions `which`.
[[nodiscard]] double rms_log_error(const std::vector<Prediction>& predictions,
                                   const std::vector<std::size_t>& which);

// Each run's out-of-sample 80 % interval (model/prediction_interval.hpp) with the RMS of the
// other groups' residuals as its spread and those groups' runs of its family and platform as its
// counts: how many measured rates fall inside, and the median width in percent of the
// prediction (exp(h) - exp(-h), h the half width in log space).
struct Coverage {
  std::size_t inside = 0;
  double median_width_pct = 0;
};
[[nodiscard]] Coverage interval_coverage(const CalibrationRuns& runs, const CrossValidation& cv);

}  // namespace csx::app
