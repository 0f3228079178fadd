// `csxsim calibrate`: options, app::execute_calibration, the report
// (docs/calibration.md#calibration); also the report `validate --cross-validate` prints.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "app/calibrate_request.hpp"
#include "app/data_folder.hpp"
#include "cli/calibration_report.hpp"
#include "cli/commands.hpp"
#include "cli/option_descriptions.hpp"

namespace csx::cli {
namespace {

namespace fs = std::filesystem;

double pct(double simulated, double measured) {
  return 100 * (simulated / measured - 1);
}

// The cross-validation's table and summaries.
void print_cross_validation(std::FILE* out, const app::CalibrationRuns& runs,
                            const app::CrossValidation& cv, const std::string& how, double rms) {
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
  fmt::print(out, "RMS of the out-of-sample log residuals {:.3g} (prediction_log_sd)\n", rms);
  const auto c = app::interval_coverage(runs, cv);
  fmt::print(out,
             "80% intervals: {} of {} out-of-sample measurements inside their own out-of-sample "
             "interval; median width {:.0f}% of the prediction\n",
             c.inside, all.size(), c.median_width_pct);
}

}  // namespace

int print_calibration(std::FILE* out, const app::CalibrateRequest& q,
                      const app::CalibrationOutcome& o) {
  const auto& runs = *o.runs;
  const auto& params = runs.parameters();
  fmt::print(out, "fitted on {} current-release runs:\n", runs.runs().size());
  for (std::size_t k = 0; k < params.size(); ++k)
    fmt::print(out, "  {} = {:.4g}  (bounds {:g}-{:g}; platforms/*.yaml: {:.4g})\n", params[k].key,
               o.best[k], params[k].low, params[k].high, o.in_files[k]);
  fmt::print(out, "in-sample MAPE {:.1f}%, largest {:.1f}%\n", o.in_sample_mape_pct,
             o.in_sample_largest_pct);
  if (q.check) {
    std::fflush(out);
    for (const auto& line : o.differences) fmt::print(stderr, "calibrate: {}\n", line);
    if (!o.differences.empty()) {
      fmt::print(stderr,
                 "calibrate: platforms/*.yaml are not the fit of the data; run tools/calibrate "
                 "--write\n");
      return 1;
    }
    fmt::print(out, "calibrate: platforms/*.yaml match a fresh fit of the data\n");
    return 0;
  }
  if (o.cv) print_cross_validation(out, runs, *o.cv, o.how, o.rms_log);
  fmt::print(out, "({} simulations of the reference set)\n", runs.simulations());
  if (!o.written.empty())
    fmt::print(out,
               "wrote platforms/{{cs2,cs3}}.yaml: fitted values, prediction_log_sd {:.4g}, "
               "stamped {}\n",
               o.rms_log, o.written);
  return 0;
}

app::CalibrationOutcome calibrate_with_status(app::CalibrateRequest request) {
  if (!isatty(STDERR_FILENO)) return app::execute_calibration(request);
  // A refit takes 10-20 s: say which one runs, so that minutes of silence are not a hang. Each
  // line overwrites the last with \r and spaces (no terminal escape codes).
  std::size_t shown = 0;  // the length of the line on screen
  const auto show = [&shown](const std::string& line) {
    fmt::print(stderr, "\r{}{}", line,
               std::string(shown > line.size() ? shown - line.size() : 0, ' '));
    std::fflush(stderr);
    shown = line.size();
  };
  request.progress = [&show](std::size_t done, std::size_t total, const std::string& group) {
    show(fmt::format("cross-validation: refit {} of {}, without {}", done + 1, total, group));
  };
  struct Erase {
    const std::size_t& shown;
    ~Erase() { fmt::print(stderr, "\r{}\r", std::string(shown, ' ')); }
  } erase{shown};
  show("calibration: fitting every measured run");
  return app::execute_calibration(request);
}

int calibrate_command(const Args& args) {
  const auto vm = parse_command(args, "calibrate");
  if (!vm) return 0;
  app::check_data_dir();
  const auto q = app::read_calibrate_request(given_options(*vm, "calibrate"));
  return print_calibration(stdout, q, calibrate_with_status(q));
}

}  // namespace csx::cli
