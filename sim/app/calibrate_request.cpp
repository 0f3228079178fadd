// `calibrate`: the request from the options given, the fit and what follows it.
#include "app/calibrate_request.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>

#include "app/calibration_files.hpp"
#include "app/data_folder.hpp"
#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "input/platform_loader.hpp"

namespace csx::app {
namespace {

// --free KEY:LOW:HIGH: a calibration key of platforms/cs2.yaml, not fitted already, LOW < HIGH.
CalibrationParameter free_parameter(const std::string& spec,
                                    const std::vector<CalibrationParameter>& params) {
  const auto bad = [&spec](const std::string& why) {
    return InputError(
        fmt::format("--free {}: expected KEY:LOW:HIGH with KEY a calibration key "
                    "of platforms/cs2.yaml and LOW < HIGH ({})",
                    spec, why));
  };
  const auto a = spec.find(':'), b = spec.find(':', a == std::string::npos ? a : a + 1);
  if (a == std::string::npos || b == std::string::npos || spec.find(':', b + 1) != spec.npos)
    throw bad("not three fields");
  std::string key = spec.substr(0, a);
  if (key.starts_with("calibration.")) key = key.substr(std::string("calibration.").size());
  if (key == "prediction_log_sd")
    throw InputError(fmt::format(
        "--free {}: prediction_log_sd sets the prediction intervals' width, not a simulated "
        "rate, so no fit can move it; --cross-validate measures it",
        spec));
  CalibrationParameter p{"calibration." + key, 0, 0};
  try {
    std::size_t used_low = 0, used_high = 0;
    const std::string low = spec.substr(a + 1, b - a - 1), high = spec.substr(b + 1);
    p.low = std::stod(low, &used_low);
    p.high = std::stod(high, &used_high);
    if (used_low != low.size() || used_high != high.size()) throw std::invalid_argument("");
  } catch (const std::logic_error&) {
    throw bad("LOW and HIGH must be numbers");
  }
  if (!std::isfinite(p.low) || !std::isfinite(p.high)) throw bad("LOW and HIGH must be finite");
  if (!(p.low < p.high)) throw bad("LOW must be below HIGH");
  try {
    (void)platform_value(data_dir(), "cs2", p.key);
  } catch (const InputError& e) {
    throw bad(e.what());
  }
  // The fit may only try values the platform files accept.
  for (const auto& k : platform::platform_keys())
    if (k.key == p.key && (k.min != 0 || k.max != 0) && (p.low < k.min || p.high > k.max))
      throw bad(fmt::format("the key takes values within [{:g}, {:g}]", k.min, k.max));
  const auto fitted = calibration_parameters();
  for (const auto& q : params)
    if (q.key == p.key)
      throw bad(std::any_of(fitted.begin(), fitted.end(),
                            [&](const CalibrationParameter& f) { return f.key == p.key; })
                    ? fmt::format("{} is fitted already", p.key)
                    : fmt::format("{} is given twice", p.key));
  return p;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &local);
  return text;
}

}  // namespace

CalibrateRequest read_calibrate_request(const GivenOptions& given) {
  CalibrateRequest q;
  q.reference = given.text("reference").value_or(default_reference());
  q.group = given.text("group").value_or("model");
  q.cross_validate = given.has("cross-validate");
  q.write = given.has("write");
  q.check = given.has("check");
  if (q.write && q.check) throw InputError("--write and --check exclude each other");
  if (given.has("group") && !q.cross_validate)
    throw InputError("--group is an option of --cross-validate");
  const std::vector<std::string> groups{"model", "family", "run"};
  if (std::find(groups.begin(), groups.end(), q.group) == groups.end())
    throw InputError(fmt::format("--group {}: expected model, family or run{}", q.group,
                                 did_you_mean(q.group, groups)));
  if (!std::filesystem::is_regular_file(q.reference))
    throw InputError(fmt::format("--reference {}: no such file", q.reference));
  const auto free = given.texts("free");
  if (!free.empty() && (q.write || q.check))
    throw InputError("--free explores; the platform files hold the three fitted values only");
  q.parameters = calibration_parameters();
  for (const auto& spec : free) q.parameters.push_back(free_parameter(spec, q.parameters));
  return q;
}

CalibrationOutcome execute_calibration(const CalibrateRequest& q) {
  const std::string dir = data_dir();
  CalibrationOutcome o;
  o.runs = std::make_shared<CalibrationRuns>(std::filesystem::absolute(q.reference).string(), dir,
                                             q.parameters);
  auto& runs = *o.runs;
  const std::size_t n = runs.runs().size();
  if (n < 2)
    throw InputError(
        fmt::format("{}: {} current-release measurement(s); a fit and its "
                    "cross-validation need at least two",
                    q.reference, n));
  for (const auto& p : runs.parameters()) o.in_files.push_back(platform_value(dir, "cs2", p.key));
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  // --write cross-validates by model; --check cross-validates nothing.
  const bool cross = (q.cross_validate || q.write) && !q.check;
  const std::string how = q.write ? "model" : q.group;
  if (cross) check_groups(runs, how);  // before the minute the fit takes
  o.best = fit_calibration(runs, all, fit_start(runs.parameters()), kFullFitStep);
  const auto sim = runs.simulate(o.best, all);
  double sum_abs = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double e =
        std::fabs(100 * (sim[i].samples_per_s / runs.runs()[i].entry.samples_per_s - 1));
    sum_abs += e;
    o.in_sample_largest_pct = std::max(o.in_sample_largest_pct, e);
  }
  o.in_sample_mape_pct = sum_abs / static_cast<double>(n);
  if (q.check) {
    o.differences = calibration_differences(dir, runs.parameters(), o.best, runs.reference());
    return o;
  }
  if (!cross) return o;
  o.how = how;
  o.cv = cross_validate_runs(runs, o.best, o.how, q.progress);
  o.rms_log = rms_log_error(o.cv->predictions, all);
  if (q.write) {
    o.written = today();
    write_calibration(dir, runs.parameters(), o.best, o.rms_log, runs.reference(), o.written);
  }
  return o;
}

}  // namespace csx::app
