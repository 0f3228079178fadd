// The calibration fit, its grouped cross-validation and the intervals' coverage.
#include "app/cross_validation.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "common/errors.hpp"
#include "model/prediction_interval.hpp"

namespace csx::app {

double log_residual(const CalibrationRuns& runs, const SimulatedRun& s, std::size_t i) {
  return std::log(s.samples_per_s / runs.runs()[i].entry.samples_per_s);
}

std::vector<double> fit_calibration(CalibrationRuns& runs, const std::vector<std::size_t>& members,
                                    const std::vector<double>& x0, double initial_step) {
  std::vector<double> low, high;
  for (const auto& p : runs.parameters()) {
    low.push_back(p.low);
    high.push_back(p.high);
  }
  const Residuals residuals = [&](const std::vector<double>& x) {
    const auto sim = runs.simulate(x, members);
    std::vector<double> r;
    for (std::size_t k = 0; k < members.size(); ++k)
      r.push_back(log_residual(runs, sim[k], members[k]));
    return r;
  };
  FitSettings settings;
  settings.f_scale = kRunNoise;
  settings.initial_step = initial_step;
  const auto fit = fit_robust(residuals, x0, low, high, settings);
  if (!fit.converged)
    throw InputError(fmt::format(
        "the fit did not converge in {} simulations of the reference set (its parameters still "
        "moved by more than {:g} of their ranges); fit fewer parameters (--free) or narrower "
        "bounds",
        fit.evaluations, settings.xtol));
  return fit.x;
}

std::vector<double> fit_start(const std::vector<CalibrationParameter>& parameters) {
  std::vector<double> x;
  for (const auto& p : parameters) x.push_back((p.low + p.high) / 2);
  return x;
}

std::string group_of(const CalibrationRun& run, const std::string& how) {
  if (how == "run") return run.entry.name;
  if (how == "model") return run.entry.model;
  return model::interval_family(run.family);
}

namespace {

InputError nothing_left_to_fit(const std::string& how) {
  return InputError(
      fmt::format("every run is of one {}; leaving it out leaves nothing to fit", how));
}

}  // namespace

void check_groups(const CalibrationRuns& runs, const std::string& how) {
  // A family is known only once simulated; one model is of one family.
  const std::string known = how == "run" ? "run" : "model";
  const auto& all = runs.runs();
  for (const auto& r : all)
    if (group_of(r, known) != group_of(all.front(), known)) return;
  throw nothing_left_to_fit(how);
}

CrossValidation cross_validate_runs(CalibrationRuns& runs, const std::vector<double>& best,
                                    const std::string& how, const RefitProgress& progress) {
  CrossValidation cv;
  const auto& all = runs.runs();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto g = group_of(all[i], how);
    auto it = std::find_if(cv.groups.begin(), cv.groups.end(),
                           [&](const auto& kv) { return kv.first == g; });
    if (it == cv.groups.end()) it = cv.groups.insert(cv.groups.end(), {g, {}});
    it->second.push_back(i);
  }
  if (cv.groups.size() < 2) throw nothing_left_to_fit(how);
  cv.predictions.resize(all.size());
  for (std::size_t done = 0; done < cv.groups.size(); ++done) {
    const auto& [g, members] = cv.groups[done];
    if (progress) progress(done, cv.groups.size(), g);
    std::vector<std::size_t> others;
    for (std::size_t i = 0; i < all.size(); ++i)
      if (std::find(members.begin(), members.end(), i) == members.end()) others.push_back(i);
    const auto x = fit_calibration(runs, others, best, kRefitStep);
    const auto sim = runs.simulate(x, members);
    for (std::size_t k = 0; k < members.size(); ++k)
      cv.predictions[members[k]] = {sim[k].samples_per_s, all[members[k]].entry.samples_per_s,
                                    sim[k].bound, x};
  }
  return cv;
}

double rms_log_error(const std::vector<Prediction>& predictions,
                     const std::vector<std::size_t>& which) {
  double sum = 0;
  for (const auto i : which) {
    const double r = std::log(predictions[i].predicted / predictions[i].measured);
    sum += r * r;
  }
  return std::sqrt(sum / static_cast<double>(which.size()));
}

Coverage interval_coverage(const CalibrationRuns& runs, const CrossValidation& cv) {
  const auto& all = runs.runs();
  std::vector<std::size_t> group(all.size());
  for (std::size_t g = 0; g < cv.groups.size(); ++g)
    for (const auto i : cv.groups[g].second) group[i] = g;
  Coverage c;
  std::vector<double> widths;
  for (std::size_t i = 0; i < all.size(); ++i) {
    std::vector<std::size_t> rest;
    for (std::size_t j = 0; j < all.size(); ++j)
      if (group[j] != group[i]) rest.push_back(j);
    model::IntervalBasis basis;
    basis.log_sd = rms_log_error(cv.predictions, rest);
    for (const auto j : rest) {
      basis.n_family +=
          model::interval_family(all[j].family) == model::interval_family(all[i].family);
      basis.n_platform += all[j].entry.platform == all[i].entry.platform;
    }
    const double half = model::interval_log_half_width(basis);
    const auto& p = cv.predictions[i];
    c.inside += std::fabs(std::log(p.predicted / p.measured)) <= half;
    widths.push_back(100 * (std::exp(half) - std::exp(-half)));
  }
  std::sort(widths.begin(), widths.end());
  const std::size_t m = widths.size();
  c.median_width_pct = m % 2 ? widths[m / 2] : (widths[m / 2 - 1] + widths[m / 2]) / 2;
  return c;
}

}  // namespace csx::app
