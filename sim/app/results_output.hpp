// What run, sweep, plan and validate write: the CSV text, its JSON twin (--json) with the inputs
// that produced it, the files a model was read from, and the busy shares of a step. One code path
// for the CLI and the Python module.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "app/job.hpp"
#include "report/atomic_file.hpp"
#include "report/results_schema.hpp"

namespace csx::app {

// run's CSV (`run --csv`): the header and a line per record of run_records.
[[nodiscard]] std::string run_csv_text(const std::vector<io::Record>& records);

// The inputs of a run or sweep as given: the scenario file, its model and sequence length
// (tokens), the platform and its overrides (KEY=VALUE), mode, num_csx and batch_size (null
// when neither flag nor file sets them), the micro_batch_size setting (mbs_setting, of the
// first pass the mode runs), compile_only, steps
// (training steps for time to train, null when unknown) and simulated_steps.
[[nodiscard]] nlohmann::ordered_json job_inputs(const std::string& command,
                                                const std::string& scenario_file,
                                                const io::Scenario& scenario, const Overrides& o);

// job_inputs completed with what make_job resolved: num_csx and, per pass, its mode,
// batch_size (samples) and micro_batch_size setting.
[[nodiscard]] nlohmann::ordered_json run_inputs(const std::string& scenario_file, const Job& job,
                                                const Overrides& o);

// job_inputs of a sweep: num_csx and batch_size are the grid's values (as listed), shard is
// "I/N".
[[nodiscard]] nlohmann::ordered_json sweep_inputs(const std::string& scenario_file,
                                                  const io::Scenario& scenario, const Overrides& o,
                                                  const std::vector<std::int64_t>& num_csx,
                                                  const std::vector<std::int64_t>& batch_sizes,
                                                  std::pair<std::int64_t, std::int64_t> shard);

// The files a model was read from: its file and those its model block extends
// (pretrain_params_path).
[[nodiscard]] std::vector<std::string> model_files(const model::ModelSpec& model);

// The files a run, sweep or plan reads: the scenario (or model) file, the files of its model
// (model_files), each platform's file, and the fit data (default_reference(), whose counts widen
// the prediction intervals).
[[nodiscard]] std::vector<std::string> input_files(const std::string& scenario_file,
                                                   const io::Scenario& scenario,
                                                   const std::vector<std::string>& platform_files);

// Refuses an output file inside the data folder's models/ or platforms/ (docs/cli.md#data-folder):
// every run reads them. Throws InputError naming the flag and the file.
void refuse_data_folder_output(const std::string& path, const std::string& flag);

// Refuses the output file `path` (given with `flag`) when it is one of `inputs`
// (io::check_output_path) or in the data folder (refuse_data_folder_output). Throws InputError
// naming the flag and the file.
void check_output(const std::string& path, const std::string& flag,
                  const std::vector<std::string>& inputs);

// check_output for each output file given (its path and flag); "" and io::kStandardOutput pass.
void check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                   const std::vector<std::string>& inputs);

// run's records, one per evaluated candidate of each pass (the rows of run_csv_text).
[[nodiscard]] std::vector<io::Record> run_records(const std::vector<PassResult>& results);

// Stages the JSON twin of a CSV, `records` of `columns` (io::results_json), for `path` in `out`
// (docs/cli.md#json-output). Throws InputError when the file cannot be written.
void stage_results_json(io::OutputFiles& out, const std::string& path,
                        const nlohmann::ordered_json& inputs,
                        const std::vector<io::ColumnInfo>& columns,
                        const std::vector<io::Record>& records);

// "compute 62%, CS-X I/O 40%, ..., optimizer 5% (bound: compute)": each resource's busy time
// over the step time (the run's table and its --trace title).
[[nodiscard]] std::string busy_shares(const plan::SimulationResult& r);

}  // namespace csx::app
