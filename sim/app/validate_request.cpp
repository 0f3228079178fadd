// `validate`: the request from the options given, its inputs and output files.
#include "app/validate_request.hpp"

#include "app/data_folder.hpp"
#include "app/job_options.hpp"
#include "app/results_output.hpp"
#include "common/errors.hpp"
#include "input/platform_loader.hpp"
#include "report/atomic_file.hpp"
#include "report/results_csv.hpp"
#include "report/validation_table.hpp"

namespace csx::app {

ValidateRequest read_validate_request(const GivenOptions& given) {
  ValidateRequest q;
  q.reference = given.text("reference").value_or(default_reference());
  q.base.platform_overrides = read_platform_overrides(given.texts("platform-override"));
  q.selection = {given.text("only"), given.text("only-platform"), given.has("measurements-only")};
  if (q.selection.only && q.selection.only->find_first_not_of(',') == std::string::npos)
    throw InputError(
        "--only is empty: name measured runs, comma-separated (csxsim validate "
        "lists them)");
  q.csv = given.text("csv").value_or("");
  q.json = given.text("json").value_or("");
  return q;
}

namespace {

// The measured runs of one list, checked, with their records (io::validation_schema).
MeasurementGroup check_group(const std::vector<Entry>& entries, std::string title, bool input_bound,
                             const ValidationSetup& setup, std::vector<io::Record>& records) {
  MeasurementGroup g{std::move(title), input_bound, {}, {}, 0};
  for (const auto& e : entries) {
    auto check = check_measurement(e, setup, input_bound);
    const auto& c = check.chosen;
    g.errors.add(check.error_pct, e.name);
    g.inconsistent += input_bound && !check.at_least_measured ? 1 : 0;
    records.push_back(io::validation_schema().record({
        .name = e.name,
        .group = g.title.substr(0, g.title.find(' ')),
        .model = e.model,
        .family = check.family,
        .platform = e.platform,
        .num_csx = e.num_csx,
        .batch_size = e.batch_size,
        .micro_batch_size = c.micro_batch_size,
        .measured_samples_per_s = e.samples_per_s,
        .simulated_samples_per_s = c.samples_per_s,
        .error_pct = check.error_pct,
        .bound = c.sim.bound,
        .release = e.release,
        .input_fed_samples_per_s =
            check.fed ? std::optional<double>(check.fed->samples_per_s) : std::nullopt,
        .input_fed_error_pct =
            check.fed ? std::optional<double>(check.fed_error_pct) : std::nullopt,
    }));
    g.checks.emplace_back(e, std::move(check));
  }
  return g;
}

}  // namespace

ValidateOutcome execute_validate(const ValidateRequest& q) {
  const ValidationSetup setup{q.reference, q.base, data_dir()};
  auto lists = read_reference(setup, q.selection);
  // Unknown override keys fail here, before any check runs; no output may be a file read.
  std::vector<std::string> inputs{q.reference};
  for (const auto& name : {"cs2", "cs3"}) {
    auto p = platform::load_platform(name, data_dir());
    platform::apply_overrides(p, q.base.platform_overrides, false);
    inputs.push_back(p.source);
  }
  for (const auto& [key, entries] : lists)
    for (const auto& e : entries) inputs.push_back(model_path(e, setup));
  check_outputs({{q.csv, "--csv"}, {q.json, "--json"}}, inputs);
  ValidateOutcome v;
  v.groups.push_back(check_group(lists["measurements"],
                                 "current releases (fitted; in-sample error)", false, setup,
                                 v.records));
  v.groups.push_back(check_group(lists["input_bound_measurements"],
                                 "input-bound runs (not fitted; the simulated compute rate must "
                                 "be at least the measured one)",
                                 true, setup, v.records));
  v.groups.push_back(check_group(lists["older_measurements"], "older releases (not fitted)", false,
                                 setup, v.records));
  v.csv = io::csv_header(io::validation_schema().columns());
  for (const auto& r : v.records) v.csv += io::csv_line(r);
  for (const auto& e : lists["auto_decisions"]) {
    v.decisions.emplace_back(e, check_decision(e, setup));
    v.failed += v.decisions.back().second.matches ? 0 : 1;
  }
  for (const auto& e : lists["memory_facts"]) {
    v.memory_facts.emplace_back(e, check_memory_fact(e, setup));
    const auto& m = v.memory_facts.back().second;
    v.failed += !m.skipped && !m.memory.fits ? 1 : 0;
  }
  for (const auto& e : lists["preferences"])
    v.preferences.emplace_back(e, check_preference(e, setup));
  v.failed += v.groups[1].inconsistent;
  v.inputs = validate_inputs(q);
  return v;
}

nlohmann::ordered_json validate_inputs(const ValidateRequest& q) {
  nlohmann::ordered_json j;
  j["command"] = "validate";
  j["reference"] = q.reference;
  auto& po = j["platform_overrides"] = nlohmann::ordered_json::array();
  for (const auto& [key, value] : q.base.platform_overrides) po.push_back(key + "=" + value);
  const auto text_or_null = [](const std::optional<std::string>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
  };
  j["only_platform"] = text_or_null(q.selection.only_platform);
  j["only"] = text_or_null(q.selection.only);
  j["measurements_only"] = q.selection.measurements_only;
  return j;
}

void write_validate_outputs(const ValidateRequest& q, const ValidateOutcome& v) {
  io::OutputFiles files;
  if (!q.csv.empty()) files.stage(q.csv, v.csv);
  if (!q.json.empty())
    stage_results_json(files, q.json, v.inputs, io::validation_schema().columns(), v.records);
  files.commit();
}

}  // namespace csx::app
