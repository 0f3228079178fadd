// Where the data folder is, what a model argument names, and a scenario's warnings.
#pragma once

#include <string>

#include "input/scenario.hpp"

namespace csx::app {

// Where platforms/ and models/ live: $CSXSIM_DATA_DIR; else the tree the csxsim executable
// sits in (its build folder's source tree, found from the executable, so a copied tree reads
// its own); else the source tree it was built from (docs/cli.md#data-folder).
[[nodiscard]] std::string data_dir();

// Throws InputError when $CSXSIM_DATA_DIR is set to a folder without platforms/ (called before a
// platform is read by name, so the error names the variable, not the platform).
void check_data_dir();

// platforms/calibration/measurements.yaml of the data folder: the fit data.
[[nodiscard]] std::string default_reference();

// A model argument: a path to a YAML file, or the stem of a file in models/ ("gpt3_xl").
// Throws InputError for neither, with a did-you-mean among models/.
[[nodiscard]] std::string resolve_model_path(const std::string& arg);

// Prints the scenario's warnings to stderr, one "warning: ..." line each.
void print_warnings(const io::Scenario& scenario);

}  // namespace csx::app
