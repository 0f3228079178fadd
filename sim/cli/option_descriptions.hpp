// A command's options (app/option_table.hpp) as Boost.Program_options takes them, and the
// options given on its command line as app::GivenOptions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "app/option_table.hpp"
#include "cli/options.hpp"

namespace csx::cli {

// Adds the CLI options of `command` to `desc`, in the table's order, with the table's help:
// a switch takes no value, a repeatable option (KEY=VALUE, --variant) is composed, the others
// take one value as text.
void add_command_options(po::options_description& desc, std::string_view command);

// The arguments of `command` (its positional options); empty when it takes none.
[[nodiscard]] po::positional_options_description command_arguments(std::string_view command);

// `args` parsed against `command`'s options and arguments (parse_options, with the help headed
// "COMMAND options" and the command's usage line); nullopt after printing --help. Throws as
// parse_options does; std::out_of_range for a command without a usage line.
[[nodiscard]] std::optional<po::variables_map> parse_command(const Args& args,
                                                             std::string_view command);

// The options of `command` given in `vm`, by flag.
[[nodiscard]] app::GivenOptions given_options(const po::variables_map& vm,
                                              std::string_view command);

}  // namespace csx::cli
