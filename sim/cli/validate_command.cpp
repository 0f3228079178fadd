// `csxsim validate`: options, the checks of app/validation.hpp entry by entry, their tables
// and summaries (docs/calibration.md#accuracy); --cross-validate runs the calibration's grouped
// cross-validation (cli/calibration_report.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <filesystem>
#include <optional>

#include "app/validation.hpp"
#include "cli/calibration_report.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
#include "cli/option_descriptions.hpp"
#include "cli/requests.hpp"
#include "cli/results_output.hpp"
#include "cli/text_sink.hpp"
#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "input/platform_loader.hpp"
#include "report/atomic_file.hpp"
#include "report/validation_table.hpp"

namespace csx::cli {
namespace {

namespace fs = std::filesystem;
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

// The selection of --only, --only-platform and --measurements-only.
app::Selection selection(const po::variables_map& vm) {
  app::Selection s;
  if (vm.count("only")) s.only = vm["only"].as<std::string>();
  if (vm.count("only-platform")) s.only_platform = vm["only-platform"].as<std::string>();
  s.measurements_only = vm.count("measurements-only") > 0;
  return s;
}

// What --json records as the inputs of a validation.
nlohmann::ordered_json validate_inputs(const ValidateRequest& q, const std::string& reference,
                                       const app::Overrides& base) {
  nlohmann::ordered_json j;
  j["command"] = "validate";
  j["reference"] = reference;
  auto& po = j["platform_overrides"] = nlohmann::ordered_json::array();
  for (const auto& [key, value] : base.platform_overrides) po.push_back(key + "=" + value);
  const auto text_or_null = [](const std::optional<std::string>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
  };
  j["only_platform"] = text_or_null(q.only_platform);
  j["only"] = text_or_null(q.only);
  j["measurements_only"] = q.measurements_only;
  return j;
}

}  // namespace

int validate_command(const Args& args) {
  po::options_description desc("validate options");
  add_command_options(desc, "validate");
  const auto vm = parse_options(
      args,
      "csxsim validate [--reference FILE] [--platform-override KEY=VALUE ...] [--csv FILE] "
      "[--cross-validate [--group model|family|run]]",
      desc);
  if (!vm) return 0;
  const std::string reference =
      vm->count("reference") ? (*vm)["reference"].as<std::string>() : default_reference();
  if (vm->count("group") && !vm->count("cross-validate"))
    throw InputError("--group is an option of --cross-validate");
  if (vm->count("cross-validate")) {
    const std::string group = vm->count("group") ? (*vm)["group"].as<std::string>() : "model";
    const std::vector<std::string> groups{"model", "family", "run"};
    if (std::find(groups.begin(), groups.end(), group) == groups.end())
      throw InputError(fmt::format("--group {}: expected model, family or run{}", group,
                                   did_you_mean(group, groups)));
    for (const auto* other :
         {"platform-override", "csv", "json", "only-platform", "only", "measurements-only"})
      if (vm->count(other))
        throw InputError(
            fmt::format("--cross-validate takes only --reference, not --{} (the "
                        "refit varies the fitted parameters itself)",
                        other));
    // The file is checked here (exit 2 naming what is wrong) before the refit starts.
    (void)app::read_reference({reference, {}, data_dir()}, selection(*vm));
    CalibrateSettings s;
    s.reference = reference;
    s.cross_validate = true;
    s.group = group;
    return run_calibration(s, stdout);
  }
  auto out = output_paths(*vm, {"csv", "json"}, {reference});
  ValidateRequest q;
  read_given(q, given_options(*vm, "validate"));
  q.reference = reference;
  q.csv = out["csv"];
  q.json = out["json"];
  // With --csv - or --json -, standard output carries the data alone: the report goes nowhere.
  std::optional<TextSink> discarded;
  if (data_on_stdout(*vm)) discarded.emplace();
  const auto v = execute_validate(q, discarded ? discarded->file() : stdout);
  write_validate_outputs(q, v);
  if (v.failed > 0) {
    fmt::print(stderr, "csxsim validate: {} check{} failed\n", v.failed, v.failed == 1 ? "" : "s");
    return 1;
  }
  return 0;
}

std::string default_reference() {
  return (fs::path(data_dir()) / "platforms/calibration/measurements.yaml").string();
}

ValidateOutcome execute_validate(const ValidateRequest& q, std::FILE* out) {
  const std::string reference = q.reference.value_or(default_reference());
  app::Overrides base;
  base.platform_overrides = read_platform_overrides(q.platform_overrides);
  const app::ValidationSetup setup{reference, base, data_dir()};
  auto lists =
      app::read_reference(setup, app::Selection{q.only, q.only_platform, q.measurements_only});
  // Unknown override keys fail here, before anything is printed.
  for (const auto& name : {"cs2", "cs3"}) {
    auto p = platform::load_platform(name, data_dir());
    platform::apply_overrides(p, base.platform_overrides, false);
  }
  if (!base.platform_overrides.empty()) {
    std::string list;
    for (const auto& [key, value] : base.platform_overrides)
      list += fmt::format("{}{}={}", list.empty() ? "" : ", ", key, value);
    fmt::print(out, "platform overrides in effect: {}\n\n", list);
  }
  ValidateOutcome v;
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
  v.inputs = validate_inputs(q, reference, base);
  v.failed = mismatches + unfit + input_inconsistent;
  return v;
}

void write_validate_outputs(const ValidateRequest& q, const ValidateOutcome& v) {
  io::OutputFiles files;
  if (!q.csv.empty()) files.stage(q.csv, v.csv);
  if (!q.json.empty())
    stage_results_json(files, q.json, v.inputs, io::validation_schema().columns(), v.records);
  files.commit();
}

}  // namespace csx::cli
