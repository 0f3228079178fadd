// Shared Boost.Program_options plumbing for the subcommands.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>

#include "cli/commands.hpp"

namespace csx::cli {

namespace po = boost::program_options;

// Parses args against desc (and positional, if any). Returns nullopt after printing help when
// --help was given. Throws InputError for an unknown option (with a did-you-mean), an option
// whose value is another option or is missing, and an argument too many (named); po::error for
// other malformed options.
[[nodiscard]] std::optional<po::variables_map> parse_options(
    const Args& args, const std::string& usage, po::options_description& desc,
    const po::positional_options_description* positional = nullptr);

}  // namespace csx::cli
