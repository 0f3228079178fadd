// CSV text and records of a run; inputs and JSON of run, sweep and plan.
#include "app/results_output.hpp"

#include <fmt/format.h>
#include <filesystem>

#include "app/data_folder.hpp"
#include "app/mbs_source.hpp"
#include "common/errors.hpp"
#include "report/results_csv.hpp"
#include "report/results_schema.hpp"

namespace csx::app {

std::vector<std::string> model_files(const model::ModelSpec& model) {
  std::vector<std::string> files{model.source};
  files.insert(files.end(), model.extends.begin(), model.extends.end());
  return files;
}

std::vector<std::string> input_files(const std::string& scenario_file, const io::Scenario& scenario,
                                     const std::vector<std::string>& platform_files) {
  auto files = model_files(scenario.model);
  files.push_back(scenario_file);
  files.insert(files.end(), platform_files.begin(), platform_files.end());
  files.push_back(default_reference());
  return files;
}

void refuse_data_folder_output(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(fs::absolute(path, ec), ec);
  for (const char* folder : {"models", "platforms"}) {
    const fs::path dir = fs::weakly_canonical(fs::path(data_dir()) / folder, ec);
    const fs::path inside = target.lexically_relative(dir);
    if (!inside.empty() && *inside.begin() != "..")
      throw InputError(fmt::format(
          "{} {}: is in csxsim's {}/ ({}), which every run reads; refusing to write there", flag,
          path, folder, dir.string()));
  }
}

void check_output(const std::string& path, const std::string& flag,
                  const std::vector<std::string>& inputs) {
  io::check_output_path(path, flag, inputs);
  refuse_data_folder_output(path, flag);
}

void check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                   const std::vector<std::string>& inputs) {
  for (const auto& [path, flag] : outputs)
    if (!path.empty() && path != io::kStandardOutput) check_output(path, flag, inputs);
}

std::vector<io::Record> run_records(const std::vector<PassResult>& results) {
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
                                  const io::Scenario& s, const Overrides& o) {
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
      mbs_setting(o.micro_batch_size, eval_only ? s.eval_mbs : s.train_mbs).setting);
  j["compile_only"] = s.compile_only || o.compile_only;
  j["steps"] = or_null(o.training_steps ? o.training_steps : s.max_steps);
  j["tokens"] = or_null(o.tokens);
  j["simulated_steps"] = o.simulated_steps.value_or(s.simulated_steps);
  // The input pipeline (docs/model.md#input-pipeline): one process's rate (null: not
  // simulated), processes per input worker and workers per CS-X.
  j["input"] = {{"samples_per_s_per_process",
                 or_null(o.input_samples_per_s ? o.input_samples_per_s : s.input_samples_per_s)},
                {"processes_per_worker", s.input_processes_per_worker},
                {"eval_processes_per_worker", s.input_eval_processes_per_worker},
                {"workers_per_csx", s.input_workers_per_csx}};
  return j;
}

nlohmann::ordered_json run_inputs(const std::string& scenario_file, const Job& job,
                                  const Overrides& o) {
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
  // Each pass's input rate as simulated (null: not simulated), where it comes from and its SD in
  // ln (docs/model.md#input-pipeline: the one given, or the platform's for the dataloader).
  for (const auto& p : job.passes) {
    const bool fed = p.input_samples_per_s > 0;
    passes.push_back({{"mode", model::to_string(p.pass)},
                      {"batch_size", p.batch_size},
                      {"micro_batch_size", batching::to_string(p.setting)},
                      {"input_samples_per_s_per_process",
                       fed ? nlohmann::ordered_json(p.input_samples_per_s) : nullptr},
                      {"input_rate_from", fed ? nlohmann::ordered_json(p.input_where) : nullptr},
                      {"input_rate_log_sd", p.input_log_sd}});
  }
  return j;
}

nlohmann::ordered_json sweep_inputs(const std::string& scenario_file, const io::Scenario& s,
                                    const Overrides& o, const std::vector<std::int64_t>& num_csx,
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

std::string busy_shares(const plan::SimulationResult& r) {
  const auto pct = [&](double busy_s) { return 100 * busy_s / r.step_time_s; };
  std::string text =
      fmt::format("compute {:.0f}%, CS-X I/O {:.0f}%", pct(r.compute_time_s), pct(r.csx_io_busy_s));
  for (std::size_t l = 0; l < r.swarmx_level_busy_s.size(); ++l)
    text += fmt::format(", SwarmX level {} {:.0f}%", l + 1, pct(r.swarmx_level_busy_s[l]));
  text += fmt::format(", MemoryX link {:.0f}%, optimizer {:.0f}%, step overhead {:.0f}%",
                      pct(r.memoryx_link_busy_s), pct(r.optimizer_time_s), pct(r.step_overhead_s));
  if (r.input_busy_s > 0) text += fmt::format(", input {:.0f}%", pct(r.input_busy_s));
  return text + fmt::format(" (bound: {})", r.bound);
}

}  // namespace csx::app
