// The calibration's runs simulated in worker processes, cached by parameter vector.
#include "app/calibration_runs.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>
#include <utility>

#include "common/errors.hpp"
#include "common/process_pool.hpp"
#include "engine/simulation.hpp"

namespace csx::app {

std::vector<CalibrationParameter> calibration_parameters() {
  return platform::fitted_parameters();
}

CalibrationRuns::CalibrationRuns(const std::string& reference, const std::string& data_dir,
                                 std::vector<CalibrationParameter> parameters)
    : setup_{reference, {}, data_dir}, params_(std::move(parameters)) {
  Selection only_measured;
  only_measured.measurements_only = true;
  auto lists = read_reference(setup_, only_measured);
  for (auto& e : lists["measurements"]) runs_.push_back({std::move(e), ""});
  std::sort(runs_.begin(), runs_.end(),
            [](const auto& a, const auto& b) { return a.entry.name < b.entry.name; });
}

std::vector<std::string> CalibrationRuns::override_values(const std::vector<double>& x) const {
  if (x.size() != params_.size())
    throw std::invalid_argument("CalibrationRuns::simulate: one value per parameter expected");
  std::vector<std::string> values;
  for (const double v : x) values.push_back(fmt::format("{:.10g}", v));
  return values;
}

ValidationSetup CalibrationRuns::setup_for(const std::vector<std::string>& values) const {
  ValidationSetup setup = setup_;
  for (std::size_t k = 0; k < params_.size(); ++k)
    setup.base.platform_overrides.emplace_back(params_[k].key, values[k]);
  return setup;
}

std::vector<SimulatedRun> CalibrationRuns::simulate(const std::vector<double>& x,
                                                    const std::vector<std::size_t>& which) {
  const auto values = override_values(x);
  auto& known = cache_[values];
  std::vector<std::size_t> fresh;  // runs not simulated at x yet
  for (const auto i : which) {
    if (i >= runs_.size()) throw std::out_of_range("CalibrationRuns::simulate: no such run");
    if (!known.count(i) && std::find(fresh.begin(), fresh.end(), i) == fresh.end())
      fresh.push_back(i);
  }
  // Each worker simulates a share of the runs in turn: a process's caches (the Model Zoo tables,
  // the fit data's counts) are filled once per share, not once per run.
  const std::size_t n = fresh.size();
  const int cpus = engine::available_cpus();
  const std::size_t shares = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(1, cpus)));
  const auto first = [&](std::size_t share) { return share * n / shares; };
  const auto setup = setup_for(values);
  std::string failure;
  int failure_status = 0;
  run_in_children(
      shares, PoolOptions{cpus, false},
      [&](std::size_t share) {
        std::string lines;
        for (std::size_t k = first(share); k < first(share + 1); ++k) {
          const auto check = check_measurement(runs_[fresh[k]].entry, setup);
          lines += fmt::format("{:.17g}\t{}\t{}\n", check.chosen.samples_per_s, check.family,
                               check.chosen.sim.bound);
        }
        return lines;
      },
      [&](std::size_t share, ChildOutcome c) {
        if (c.status != 0) {
          if (failure.empty()) {
            failure = c.output;
            failure_status = c.status;
          }
          return;
        }
        std::size_t at = 0;
        for (std::size_t k = first(share); k < first(share + 1); ++k) {
          const auto a = c.output.find('\t', at), b = c.output.find('\t', a + 1),
                     end = c.output.find('\n', b + 1);
          auto& run = runs_[fresh[k]];
          known[fresh[k]] = {std::stod(c.output.substr(at, a - at)),
                             c.output.substr(b + 1, end - b - 1)};
          if (run.family.empty()) run.family = c.output.substr(a + 1, b - a - 1);
          at = end + 1;
        }
      },
      [&] { return !failure.empty(); });
  if (failure_status == 2) throw InputError(failure);
  if (!failure.empty())
    throw std::runtime_error(fmt::format("a calibration simulation failed: {}", failure));
  std::vector<SimulatedRun> out;
  for (const auto i : which) out.push_back(known.at(i));
  return out;
}

}  // namespace csx::app
