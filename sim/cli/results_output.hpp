// What run, sweep, plan and validate write: the CSV text and its JSON twin (--json) with the inputs
// that produced it. One code path for the CLI and the Python module.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/job.hpp"
#include "cli/options.hpp"
#include "report/atomic_file.hpp"
#include "report/results_schema.hpp"

namespace csx::cli {

// run's CSV (`run --csv`): the header and a line per record of run_records.
[[nodiscard]] std::string run_csv_text(const std::vector<io::Record>& records);

// The inputs of a run or sweep as given: the scenario file, its model and sequence length
// (tokens), the platform and its overrides (KEY=VALUE), mode, num_csx and batch_size (null
// when neither flag nor file sets them), the micro_batch_size setting (app::mbs_setting, of the
// first pass the mode runs), compile_only, steps
// (training steps for time to train, null when unknown) and simulated_steps.
[[nodiscard]] nlohmann::ordered_json job_inputs(const std::string& command,
                                                const std::string& scenario_file,
                                                const io::Scenario& scenario,
                                                const app::Overrides& o);

// job_inputs completed with what make_job resolved: num_csx and, per pass, its mode,
// batch_size (samples) and micro_batch_size setting.
[[nodiscard]] nlohmann::ordered_json run_inputs(const std::string& scenario_file,
                                                const app::Job& job, const app::Overrides& o);

// job_inputs of a sweep: num_csx and batch_size are the grid's values (as listed), shard is
// "I/N".
[[nodiscard]] nlohmann::ordered_json sweep_inputs(const std::string& scenario_file,
                                                  const io::Scenario& scenario,
                                                  const app::Overrides& o,
                                                  const std::vector<std::int64_t>& num_csx,
                                                  const std::vector<std::int64_t>& batch_sizes,
                                                  std::pair<std::int64_t, std::int64_t> shard);

// The output files of `flags` (e.g. {"csv", "json"}) as given, "" for a flag not given. Each
// given one passes io::check_output_path against `inputs` (an empty name is refused) and no two
// name one file; --csv and --json may be io::kStandardOutput ("-"), not both. Throws InputError
// naming the flags.
[[nodiscard]] std::map<std::string, std::string> output_paths(
    const po::variables_map& vm, const std::vector<std::string>& flags,
    const std::vector<std::string>& inputs);

// The files a model was read from: its file and those its model block extends
// (pretrain_params_path).
[[nodiscard]] std::vector<std::string> model_files(const model::ModelSpec& model);

// Refuses (InputError, as output_paths) any output of `flags` that is one of the model's files
// (model_files), once the scenario is loaded.
void check_outputs_against_model(const po::variables_map& vm, const std::vector<std::string>& flags,
                                 const io::Scenario& scenario);

// True when --csv or --json is "-": the data goes to standard output, so the command prints
// no table there (as with --quiet); notices stay on standard error.
[[nodiscard]] bool data_on_stdout(const po::variables_map& vm);

// run's records, one per evaluated candidate of each pass (the rows of run_csv_text).
[[nodiscard]] std::vector<io::Record> run_records(const std::vector<app::PassResult>& results);

// Stages the JSON twin of a CSV, `records` of `columns` (io::results_json), for `path` in `out`
// (docs/cli.md#json-output). Throws InputError when the file cannot be written.
void stage_results_json(io::OutputFiles& out, const std::string& path,
                        const nlohmann::ordered_json& inputs,
                        const std::vector<io::ColumnInfo>& columns,
                        const std::vector<io::Record>& records);

}  // namespace csx::cli
