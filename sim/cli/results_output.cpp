// CSV text and records of a run; inputs and JSON of run, sweep and validate.
#include "cli/results_output.hpp"

#include <fmt/format.h>
#include <cstdio>
#include <filesystem>
#include "common/errors.hpp"

#include "app/mbs_source.hpp"
#include "report/atomic_file.hpp"
#include "report/results_csv.hpp"
#include "report/results_schema.hpp"

namespace csx::cli {

namespace {

// True when a and b name one file, also spelled differently and not yet created.
bool same_path(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec1, ec2;
  const auto ca = fs::weakly_canonical(fs::absolute(a, ec1), ec1);
  const auto cb = fs::weakly_canonical(fs::absolute(b, ec2), ec2);
  return a == b || (!ec1 && !ec2 && ca == cb);
}

}  // namespace

std::map<std::string, std::string> output_paths(const po::variables_map& vm,
                                                const std::vector<std::string>& flags,
                                                const std::vector<std::string>& inputs) {
  std::map<std::string, std::string> paths;
  std::vector<std::string> given;  // flags given, in order
  for (const auto& f : flags) {
    paths[f] = vm.count(f) ? vm[f].as<std::string>() : "";
    if (!vm.count(f)) continue;
    // Of the outputs, --csv and --json may be standard output (data_on_stdout), one of them.
    const bool to_stdout = paths[f] == io::kStandardOutput && (f == "csv" || f == "json");
    if (paths[f] == io::kStandardOutput && !to_stdout)
      io::check_output_path(paths[f], "--" + f, inputs);  // refuses "-"
    for (const auto& earlier : given)
      if (to_stdout && paths[earlier] == io::kStandardOutput)
        throw InputError(fmt::format(
            "--{} - and --{} -: only one output can go to standard output; name a file for the "
            "other",
            earlier, f));
      else if (same_path(paths[earlier], paths[f]))
        throw InputError(fmt::format("--{} and --{} name the same file {}", earlier, f, paths[f]));
    if (!to_stdout) io::check_output_path(paths[f], "--" + f, inputs);
    given.push_back(f);
  }
  return paths;
}

std::vector<std::string> model_files(const model::ModelSpec& model) {
  std::vector<std::string> files{model.source};
  files.insert(files.end(), model.extends.begin(), model.extends.end());
  return files;
}

void check_outputs_against_model(const po::variables_map& vm, const std::vector<std::string>& flags,
                                 const io::Scenario& scenario) {
  const auto inputs = model_files(scenario.model);
  for (const auto& f : flags)
    if (vm.count(f) && vm[f].as<std::string>() != io::kStandardOutput)
      io::check_output_path(vm[f].as<std::string>(), "--" + f, inputs);
}

bool data_on_stdout(const po::variables_map& vm) {
  for (const auto* f : {"csv", "json"})
    if (vm.count(f) && vm[f].as<std::string>() == io::kStandardOutput) return true;
  return false;
}

std::vector<io::Record> run_records(const std::vector<app::PassResult>& results) {
  std::vector<io::Record> records;
  for (const auto& r : results)
    for (const auto& row : r.outcome.rows) records.push_back(io::csv_record(r.context, row));
  return records;
}

std::string run_csv_text(const std::vector<io::Record>& records) {
  std::string text = io::csv_header();
  for (const auto& r : records) text += io::csv_line(r);
  return text;
}

namespace {

template <typename T>
nlohmann::ordered_json or_null(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

nlohmann::ordered_json job_inputs(const std::string& command, const std::string& scenario_file,
                                  const io::Scenario& s, const app::Overrides& o) {
  nlohmann::ordered_json j;
  j["command"] = command;
  j["scenario"] = scenario_file;
  j["model"] = s.model.label;
  j["seq_len"] = s.model.seq_len;
  j["platform"] = o.platform.value_or(s.platform);
  auto& po = j["platform_overrides"] = nlohmann::ordered_json::array();
  for (const auto& [key, value] : o.platform_overrides) po.push_back(key + "=" + value);
  j["mode"] = io::to_string(o.mode.value_or(s.mode));
  j["num_csx"] = or_null(o.num_csx ? o.num_csx : s.num_csx);
  j["batch_size"] = or_null(o.batch_size ? o.batch_size : s.batch_size);
  // The setting of the first pass the mode runs (an eval-only run's is the eval one).
  const bool eval_only = o.mode.value_or(s.mode) == io::Mode::kEval;
  j["micro_batch_size"] = batching::to_string(
      app::mbs_setting(o.micro_batch_size, eval_only ? s.eval_mbs : s.train_mbs).setting);
  j["compile_only"] = s.compile_only || o.compile_only;
  j["steps"] = or_null(o.training_steps ? o.training_steps : s.max_steps);
  j["tokens"] = or_null(o.tokens);
  j["simulated_steps"] = o.simulated_steps.value_or(s.simulated_steps);
  return j;
}

nlohmann::ordered_json run_inputs(const std::string& scenario_file, const app::Job& job,
                                  const app::Overrides& o) {
  auto j = job_inputs("run", scenario_file, job.scenario, o);
  j["platform"] = job.platform_label;
  j["num_csx"] = job.num_csx;
  j["compile_only"] = job.scenario.compile_only;
  j["steps"] = or_null(job.training_steps);
  j["simulated_steps"] = job.scenario.simulated_steps;
  // What the rows' 80 % intervals come from (model/prediction_interval.hpp).
  j["prediction_interval"] = {{"level", 0.8},
                              {"z", model::kZ80},
                              {"log_sd", job.interval.log_sd},
                              {"family", model::interval_family(job.scenario.model.name)},
                              {"family_runs", job.interval.n_family},
                              {"platform_runs", job.interval.n_platform}};
  auto& passes = j["passes"] = nlohmann::ordered_json::array();
  for (const auto& p : job.passes)
    passes.push_back({{"mode", model::to_string(p.pass)},
                      {"batch_size", p.batch_size},
                      {"micro_batch_size", batching::to_string(p.setting)}});
  return j;
}

nlohmann::ordered_json sweep_inputs(const std::string& scenario_file, const io::Scenario& s,
                                    const app::Overrides& o,
                                    const std::vector<std::int64_t>& num_csx,
                                    const std::vector<std::int64_t>& batch_sizes,
                                    std::pair<std::int64_t, std::int64_t> shard) {
  auto j = job_inputs("sweep", scenario_file, s, o);
  j["num_csx"] = num_csx;
  j["batch_size"] = batch_sizes;
  j["shard"] = fmt::format("{}/{}", shard.first, shard.second);
  return j;
}

void stage_results_json(io::OutputFiles& out, const std::string& path,
                        const nlohmann::ordered_json& inputs,
                        const std::vector<io::ColumnInfo>& columns,
                        const std::vector<io::Record>& records) {
  out.stage(path, io::results_json(inputs, columns, records));
}

}  // namespace csx::cli
