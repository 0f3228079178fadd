// `validate`: the request from the options given, its inputs and output files.
#include "app/validate_request.hpp"

#include <filesystem>

#include "app/data_folder.hpp"
#include "app/job_options.hpp"
#include "app/results_output.hpp"
#include "report/atomic_file.hpp"
#include "report/results_csv.hpp"
#include "report/validation_table.hpp"

namespace csx::app {

std::string default_reference() {
  return (std::filesystem::path(data_dir()) / "platforms/calibration/measurements.yaml").string();
}

ValidateRequest read_validate_request(const GivenOptions& given) {
  ValidateRequest q;
  q.reference = given.text("reference").value_or(default_reference());
  q.base.platform_overrides = read_platform_overrides(given.texts("platform-override"));
  q.selection = {given.text("only"), given.text("only-platform"), given.has("measurements-only")};
  q.csv = given.text("csv").value_or("");
  q.json = given.text("json").value_or("");
  return q;
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
