// The report of `csxsim validate`: the checks of app/validation.hpp entry by entry, their
// tables and summaries (docs/calibration.md#accuracy).
#include "cli/validation_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>

#include "app/data_folder.hpp"
#include "common/errors.hpp"
#include "input/platform_loader.hpp"
#include "report/results_csv.hpp"
#include "report/validation_table.hpp"

namespace csx::cli {
namespace {

using app::Entry;

// Checks measured runs; prints a table and returns their rows (io::validation_schema). For
// input-bound runs the simulated (compute-bound) rate must be at least the measured one;
// `inconsistent` counts those that are not.
std::vector<io::Record> check_measurements(std::FILE* out, const std::vector<Entry>& entries,
                                           const std::string& group,
                                           const app::ValidationSetup& setup,
                                           int* inconsistent = nullptr) {
  if (entries.empty()) return {};
  fmt::print(out, "{}\n{:<18} {:<5} {:>3} {:>6} {:>5} {:>11} {:>12} {:>8}  {:<16} {}\n", group,
             "entry", "plat", "N", "batch", "MBS", "measured/s", "simulated/s", "error", "release",
             "bound");
  std::vector<io::Record> rows;
  app::ErrorSummary errs;
  for (const auto& e : entries) {
    const auto check = app::check_measurement(e, setup);
    const auto& c = check.chosen;
    const double err = check.error_pct;
    errs.add(err, e.name);
    fmt::print(out, "{:<18} {:<5} {:>3} {:>6} {:>5} {:>11.2f} {:>12.2f} {:>+7.1f}%  {:<16} {}\n",
               e.name, e.platform, e.num_csx, e.batch_size, c.micro_batch_size, e.samples_per_s,
               c.samples_per_s, err, e.release, c.sim.bound);
    if (!e.unexplained.empty())
      fmt::print(out, "  not explained by the model: {}\n", e.unexplained);
    if (inconsistent) {
      const bool holds = check.at_least_measured;
      *inconsistent += holds ? 0 : 1;
      fmt::print(out, "  {}: {}\n",
                 holds ? "consistent (simulated compute rate >= measured)"
                       : "INCONSISTENT: the simulated compute rate is below the "
                         "measured input-bound rate",
                 e.reason);
    }
    rows.push_back(io::validation_schema().record({
        .name = e.name,
        .group = group.substr(0, group.find(' ')),
        .model = e.model,
        .family = check.family,
        .platform = e.platform,
        .num_csx = e.num_csx,
        .batch_size = e.batch_size,
        .micro_batch_size = c.micro_batch_size,
        .measured_samples_per_s = e.samples_per_s,
        .simulated_samples_per_s = c.samples_per_s,
        .error_pct = err,
        .bound = c.sim.bound,
        .release = e.release,
    }));
  }
  if (inconsistent)
    fmt::print(out,
               "not in the MAPE: the measured rates are the input pipeline's, which csxsim does "
               "not model\n\n");
  else
    fmt::print(out, "MAPE {:.1f}% over {} entries; largest error {:+.1f}% ({})\n\n", errs.mape(),
               errs.n, errs.worst, errs.worst_name);
  return rows;
}

// What the real `auto` chose: returns the number of mismatches.
int check_decisions(std::FILE* out, const std::vector<Entry>& entries,
                    const app::ValidationSetup& setup) {
  int mismatches = 0;
  for (const auto& e : entries) {
    const auto c = app::check_decision(e, setup);
    mismatches += c.matches ? 0 : 1;
    fmt::print(out,
               "auto decision {}: {} (expected {}, simulated {} of per-system batch {}; evaluated "
               "{}; the real stack tried {})\n  {}\n",
               e.name, c.matches ? "matches" : "DOES NOT MATCH", e.expected, c.chosen,
               c.per_system_batch, fmt::join(c.evaluated, ", "), fmt::join(e.tried, ", "),
               c.decision);
  }
  return mismatches;
}

// Micro-batch sizes that compiled must fit: returns the number that do not.
int check_memory(std::FILE* out, const std::vector<Entry>& facts,
                 const app::ValidationSetup& setup) {
  int failed = 0, skipped = 0, fitted = 0;
  for (const auto& e : facts) {
    const auto c = app::check_memory_fact(e, setup);
    if (c.skipped) {
      ++skipped;
      continue;
    }
    const auto& m = c.memory;
    if (m.fits) {
      ++fitted;
      fmt::print(out, "memory fact {}: fits on {} (headroom {:.2f} GB; {})\n", e.name, e.platform,
                 std::max(0.0, m.headroom_bytes) / 1e9, m.activation_plan);
    } else {
      ++failed;
      fmt::print(out, "memory fact {}: DOES NOT FIT on {}: {}\n", e.name, e.platform, m.reason);
    }
  }
  if (!facts.empty())
    fmt::print(out, "memory facts: {} of {} fit{}\n\n", fitted, fitted + failed,
               skipped ? fmt::format(" ({} skipped: model file absent)", skipped) : "");
  return failed;
}

// Where the preferred MBS ranks among all candidates (explore, compile-only).
void check_preferences(std::FILE* out, const std::vector<Entry>& entries,
                       const app::ValidationSetup& setup) {
  for (const auto& e : entries) {
    const auto c = app::check_preference(e, setup);
    if (!c.rank)
      fmt::print(out, "preference {}: MBS {} is not a fitting candidate\n", e.name, e.preferred);
    else
      fmt::print(out,
                 "preference {}: MBS {} ranks {} of {} ({:.1f}% slower than the fastest, {})\n",
                 e.name, e.preferred, *c.rank, c.candidates, c.slower_pct, c.fastest);
  }
}

}  // namespace

app::ValidateOutcome print_validation(const app::ValidateRequest& q, std::FILE* out) {
  const auto& base = q.base;
  const app::ValidationSetup setup{q.reference, base, app::data_dir()};
  auto lists = app::read_reference(setup, q.selection);
  // Unknown override keys fail here, before anything is printed.
  for (const auto& name : {"cs2", "cs3"}) {
    auto p = platform::load_platform(name, app::data_dir());
    platform::apply_overrides(p, base.platform_overrides, false);
  }
  if (!base.platform_overrides.empty()) {
    std::string list;
    for (const auto& [key, value] : base.platform_overrides)
      list += fmt::format("{}{}={}", list.empty() ? "" : ", ", key, value);
    fmt::print(out, "platform overrides in effect: {}\n\n", list);
  }
  app::ValidateOutcome v;
  auto& records = v.records;
  const auto add = [&records](std::vector<io::Record> rows) {
    records.insert(records.end(), rows.begin(), rows.end());
  };
  add(check_measurements(out, lists["measurements"], "current releases (fitted; in-sample error)",
                         setup));
  int input_inconsistent = 0;
  add(check_measurements(out, lists["input_bound_measurements"],
                         "input-bound runs (not fitted; the simulated compute rate must be at "
                         "least the measured one)",
                         setup, &input_inconsistent));
  add(check_measurements(out, lists["older_measurements"], "older releases (not fitted)", setup));
  v.csv = io::csv_header(io::validation_schema().columns());
  for (const auto& r : records) v.csv += io::csv_line(r);
  const int mismatches = check_decisions(out, lists["auto_decisions"], setup);
  if (!lists["auto_decisions"].empty())
    fmt::print(out, "auto decisions: {} of {} match\n\n",
               lists["auto_decisions"].size() - mismatches, lists["auto_decisions"].size());
  const int unfit = check_memory(out, lists["memory_facts"], setup);
  check_preferences(out, lists["preferences"], setup);
  v.inputs = app::validate_inputs(q);
  v.failed = mismatches + unfit + input_inconsistent;
  return v;
}

}  // namespace csx::cli
