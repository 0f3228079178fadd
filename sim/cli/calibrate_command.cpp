// `csxsim calibrate`: the calibration fit, its cross-validation, and the platform files' check
// and update (docs/calibration.md#calibration); the report --cross-validate prints.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>

#include "app/calibration_files.hpp"
#include "app/cross_validation.hpp"
#include "app/data_folder.hpp"
#include "cli/calibration_report.hpp"
#include "cli/commands.hpp"
#include "cli/option_descriptions.hpp"
#include "cli/options.hpp"
#include "common/did_you_mean.hpp"
#include "common/errors.hpp"

namespace csx::cli {
namespace {

namespace fs = std::filesystem;

double pct(double simulated, double measured) {
  return 100 * (simulated / measured - 1);
}

// The parameters: the three fitted ones, then each --free KEY:LOW:HIGH.
std::vector<app::CalibrationParameter> parameters(const std::vector<std::string>& free) {
  auto params = app::calibration_parameters();
  for (const auto& spec : free) {
    const auto bad = [&spec](const std::string& why) {
      return InputError(
          fmt::format("--free {}: expected KEY:LOW:HIGH with KEY a calibration key "
                      "of platforms/cs2.yaml and LOW < HIGH ({})",
                      spec, why));
    };
    const auto a = spec.find(':'), b = spec.find(':', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos || spec.find(':', b + 1) != spec.npos)
      throw bad("not three fields");
    app::CalibrationParameter p{"calibration." + spec.substr(0, a), 0, 0};
    try {
      std::size_t used_low = 0, used_high = 0;
      const std::string low = spec.substr(a + 1, b - a - 1), high = spec.substr(b + 1);
      p.low = std::stod(low, &used_low);
      p.high = std::stod(high, &used_high);
      if (used_low != low.size() || used_high != high.size()) throw std::invalid_argument("");
    } catch (const std::logic_error&) {
      throw bad("LOW and HIGH must be numbers");
    }
    if (!(p.low < p.high) || !std::isfinite(p.low) || !std::isfinite(p.high))
      throw bad("LOW must be below HIGH");
    try {
      (void)app::platform_value(app::data_dir(), "cs2", p.key);
    } catch (const InputError& e) {
      throw bad(e.what());
    }
    for (const auto& q : params)
      if (q.key == p.key) throw bad(fmt::format("{} is fitted already", p.key));
    params.push_back(p);
  }
  return params;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &local);
  return text;
}

// The cross-validation's table and summaries; returns the RMS of its log residuals.
double print_cross_validation(std::FILE* out, const app::CalibrationRuns& runs,
                              const app::CrossValidation& cv, const std::string& how) {
  const std::string label = how == "run"     ? "leave-one-out"
                            : how == "model" ? "leave-one-model-out"
                                             : "leave-one-family-out";
  fmt::print(out, "\n{}: each run predicted by a fit that never saw its {}\n", label, how);
  fmt::print(out, "{:<16} {:<26} {:>11} {:>12} {:>8}  {:<14} refit values\n", "entry", "group",
             "measured/s", "predicted/s", "error", "bound");
  double sum_abs = 0, worst = 0;
  std::string worst_name;
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < runs.runs().size(); ++i) {
    const auto& run = runs.runs()[i];
    const auto& p = cv.predictions[i];
    const double err = pct(p.predicted, p.measured);
    sum_abs += std::fabs(err);
    if (worst_name.empty() || std::fabs(err) > std::fabs(worst)) {
      worst = err;
      worst_name = run.entry.name;
    }
    all.push_back(i);
    std::vector<std::string> values;
    for (const double v : p.refit) values.push_back(fmt::format("{:.3g}", v));
    fmt::print(out, "{:<16} {:<26} {:>11.2f} {:>12.2f} {:>+7.1f}%  {:<14} {}\n", run.entry.name,
               fs::path(app::group_of(run, how)).filename().string(), p.measured, p.predicted, err,
               p.bound, fmt::join(values, ", "));
  }
  fmt::print(out, "\n{} MAPE {:.1f}%; largest {:+.1f}% ({}); {} runs in {} groups\n", label,
             sum_abs / static_cast<double>(all.size()), worst, worst_name, all.size(),
             cv.groups.size());
  const double rms = app::rms_log_error(cv.predictions, all);
  fmt::print(out, "RMS of the out-of-sample log residuals {:.3g} (prediction_log_sd)\n", rms);
  const auto c = app::interval_coverage(runs, cv);
  fmt::print(out,
             "80% intervals: {} of {} out-of-sample measurements inside their own out-of-sample "
             "interval; median width {:.0f}% of the prediction\n",
             c.inside, all.size(), c.median_width_pct);
  return rms;
}

}  // namespace

int run_calibration(const CalibrateSettings& s, std::FILE* out) {
  if (!s.free.empty() && (s.write || s.check))
    throw InputError("--free explores; the platform files hold the three fitted values only");
  const std::string dir = app::data_dir();
  app::CalibrationRuns runs(fs::absolute(s.reference).string(), dir, parameters(s.free));
  const auto& params = runs.parameters();
  const std::size_t n = runs.runs().size();
  if (n < 2)
    throw InputError(
        fmt::format("{}: {} current-release measurement(s); a fit and its "
                    "cross-validation need at least two",
                    s.reference, n));
  std::vector<double> x0;
  for (const auto& p : params) x0.push_back(app::platform_value(dir, "cs2", p.key));
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  const auto best = app::fit_calibration(runs, all, x0);
  fmt::print(out, "fitted on {} current-release runs:\n", n);
  for (std::size_t k = 0; k < params.size(); ++k)
    fmt::print(out, "  {} = {:.4g}  (bounds {:g}-{:g}; platforms/*.yaml: {:.4g})\n", params[k].key,
               best[k], params[k].low, params[k].high, x0[k]);
  const auto sim = runs.simulate(best, all);
  double sum_abs = 0, largest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double e = std::fabs(pct(sim[i].samples_per_s, runs.runs()[i].entry.samples_per_s));
    sum_abs += e;
    largest = std::max(largest, e);
  }
  fmt::print(out, "in-sample MAPE {:.1f}%, largest {:.1f}%\n", sum_abs / static_cast<double>(n),
             largest);
  if (s.check) {
    const auto bad = app::calibration_differences(dir, params, best, runs.reference());
    std::fflush(out);
    for (const auto& line : bad) fmt::print(stderr, "calibrate: {}\n", line);
    if (!bad.empty()) {
      fmt::print(stderr,
                 "calibrate: platforms/*.yaml are not the fit of the data; run tools/calibrate "
                 "--write\n");
      return 1;
    }
    fmt::print(out, "calibrate: platforms/*.yaml match a fresh fit of the data\n");
    return 0;
  }
  if (!s.cross_validate && !s.write) {
    fmt::print(out, "({} simulations of the reference set)\n", runs.simulations());
    return 0;
  }
  const std::string how = s.write ? "model" : s.group;
  const auto cv = app::cross_validate_runs(runs, best, how);
  const double rms = print_cross_validation(out, runs, cv, how);
  fmt::print(out, "({} simulations of the reference set)\n", runs.simulations());
  if (s.write) {
    const auto date = today();
    app::write_calibration(dir, params, best, rms, runs.reference(), date);
    fmt::print(out,
               "wrote platforms/{{cs2,cs3}}.yaml: fitted values, prediction_log_sd {:.4g}, "
               "stamped {}\n",
               rms, date);
  }
  return 0;
}

int calibrate_command(const Args& args) {
  const auto vm = parse_command(args, "calibrate");
  if (!vm) return 0;
  CalibrateSettings s;
  s.reference = app::default_reference();
  if (vm->count("reference")) s.reference = (*vm)["reference"].as<std::string>();
  if (vm->count("group")) s.group = (*vm)["group"].as<std::string>();
  s.cross_validate = vm->count("cross-validate") > 0;
  s.write = vm->count("write") > 0;
  s.check = vm->count("check") > 0;
  if (vm->count("free")) s.free = (*vm)["free"].as<std::vector<std::string>>();
  if (s.write && s.check) throw InputError("--write and --check exclude each other");
  if (vm->count("group") && !s.cross_validate)
    throw InputError("--group is an option of --cross-validate");
  const std::vector<std::string> groups{"model", "family", "run"};
  if (std::find(groups.begin(), groups.end(), s.group) == groups.end())
    throw InputError(fmt::format("--group {}: expected model, family or run{}", s.group,
                                 did_you_mean(s.group, groups)));
  if (!fs::is_regular_file(s.reference))
    throw InputError(fmt::format("--reference {}: no such file", s.reference));
  return run_calibration(s, stdout);
}

}  // namespace csx::cli
