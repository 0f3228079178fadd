// Shared Boost.Program_options plumbing for the subcommands.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "input/scenario.hpp"

namespace csx::cli {

namespace po = boost::program_options;

// Parses args against desc (and positional, if any). Returns nullopt after printing help when
// --help was given. Throws po::error on unknown or malformed options.
[[nodiscard]] std::optional<po::variables_map> parse_options(
    const Args& args, const std::string& usage, po::options_description& desc,
    const po::positional_options_description* positional = nullptr);

}  // namespace csx::cli

namespace csx::cli {

// Where platforms/ and models/ live: $CSXSIM_DATA_DIR; else the tree the csxsim executable
// sits in (its build folder's source tree, found from the executable, so a copied tree reads
// its own); else the source tree it was built from (docs/cli.md#data-folder).
[[nodiscard]] std::string data_dir();

// A model argument: a path to a YAML file, or the stem of a file in models/ ("gpt3_xl").
[[nodiscard]] std::string resolve_model_path(const std::string& arg);

// Prints the scenario's warnings to stderr, one "warning: ..." line each.
void print_warnings(const io::Scenario& scenario);

}  // namespace csx::cli
