// The output flags of a parsed command line (--csv, --json, --trace): checked against the
// inputs and each other.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "input/scenario.hpp"

namespace csx::cli {

// The output files of `flags` (e.g. {"csv", "json"}) as given, "" for a flag not given. Each
// given one passes io::check_output_path against `inputs` (an empty name is refused) and no two
// name one file; --csv and --json may be io::kStandardOutput ("-"), not both. Throws InputError
// naming the flags.
[[nodiscard]] std::map<std::string, std::string> output_paths(
    const po::variables_map& vm, const std::vector<std::string>& flags,
    const std::vector<std::string>& inputs);

// Refuses (InputError, as output_paths) any output of `flags` that is one of the model's files
// (model_files), once the scenario is loaded.
void check_outputs_against_model(const po::variables_map& vm, const std::vector<std::string>& flags,
                                 const io::Scenario& scenario);

// True when --csv or --json is "-": the data goes to standard output, so the command prints
// no table there (as with --quiet); notices stay on standard error.
[[nodiscard]] bool data_on_stdout(const po::variables_map& vm);

}  // namespace csx::cli
