// Option parsing shared by the subcommands.
#include "cli/options.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <iostream>

#include "app/option_table.hpp"
#include "common/did_you_mean.hpp"
#include "common/errors.hpp"

namespace csx::cli {

namespace {

// Whether a value token is another option: "-x" or "--x" that is not a number ("-5", "-1e3",
// "-inf" stay values, for the parser of the flag to judge) and not "-" (standard output).
bool looks_like_option(const std::string& token) {
  if (token.size() < 2 || token[0] != '-') return false;
  if (std::isdigit(static_cast<unsigned char>(token[1])) || token[1] == '.') return false;
  double number = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), number);
  return ec != std::errc() || end != token.data() + token.size();
}

InputError needs_value(const std::string& flag, const std::string& value) {
  return InputError(
      fmt::format("{} needs a value; got the option {}{}", flag, value,
                  flag.starts_with("--")
                      ? fmt::format(" (for a value that starts with -, write {}={})", flag, value)
                      : std::string()));
}

// Boost takes the token after a value-taking option as its value when it is a long option
// (`--json --quiet` would write a file named --quiet). Refuses such a value when it came as a
// token of its own; `--json=--quiet` says it is meant.
void refuse_options_as_values(const po::parsed_options& parsed) {
  for (const auto& o : parsed.options) {
    if (o.position_key >= 0 || o.original_tokens.size() < 2) continue;
    for (const auto& value : o.value)
      if (looks_like_option(value)) throw needs_value(o.original_tokens.front(), value);
  }
}

// A known short option after a value-taking one (`--csv -q`) is refused by Boost as a missing
// value, naming the option by its long name: the same message as above, with the tokens given.
void refuse_missing_value(const Args& args, const po::options_description& desc,
                          const std::string& name) {
  const auto* wanted = name.starts_with("--") ? desc.find_nothrow(name.substr(2), false) : nullptr;
  if (!wanted) return;
  const std::string short_form =
      wanted->canonical_display_name(po::command_line_style::allow_dash_for_short);
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if ((args[i] == name || args[i] == short_form) && looks_like_option(args[i + 1]))
      throw needs_value(args[i], args[i + 1]);
}

// " (--variant is an option of sweep and plan)" for an option other commands take on the
// command line; "" for none.
std::string other_commands_hint(const std::string& given) {
  const bool is_short = given.size() == 2 && given[0] == '-' && given[1] != '-';
  if (!is_short && !given.starts_with("--")) return "";
  std::vector<std::string_view> commands;
  for (const auto command : app::option_commands())
    for (const auto& o : app::command_options(command))
      if (o.on_cli() &&
          (is_short ? o.short_flag == given[1] : "--" + std::string(o.spec->flag) == given)) {
        commands.push_back(command);
        break;
      }
  if (commands.empty()) return "";
  std::string list;
  for (std::size_t i = 0; i < commands.size(); ++i)
    list += fmt::format("{}{}",
                        i == 0                     ? ""
                        : i + 1 == commands.size() ? " and "
                                                   : ", ",
                        commands[i]);
  return fmt::format(" ({} is an option of {})", given, list);
}

}  // namespace

std::optional<po::variables_map> parse_options(
    const Args& args, const std::string& usage, po::options_description& desc,
    const po::positional_options_description* positional) {
  desc.add_options()("help,h", "show this help");
  po::variables_map vm;
  static const po::positional_options_description none;
  // No guessing of abbreviated options: `--mode` must not be read as `--model`.
  const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  auto parser = po::command_line_parser(args)
                    .options(desc)
                    .positional(positional ? *positional : none)
                    .style(style);
  try {
    // First without the positional arguments, which could be refused before an option's value
    // (`-b --num-csx 2`: 2 would be one argument too many).
    refuse_options_as_values(po::command_line_parser(args).options(desc).style(style).run());
    po::store(parser.run(), vm);
  } catch (const po::unknown_option& e) {
    std::vector<std::string> names;
    for (const auto& o : desc.options()) names.push_back("--" + o->long_name());
    std::string given = e.get_option_name();
    const std::string name = given.substr(0, given.find('='));
    // An option of other commands is named as theirs before any near spelling of this one's.
    std::string hint = other_commands_hint(name);
    if (hint.empty()) hint = did_you_mean(name, names);
    throw InputError(fmt::format("unrecognised option '{}'{}", given, hint));
  } catch (const po::too_many_positional_options_error&) {
    // Read every positional argument once more, to name the first one too many.
    po::options_description all;
    all.add(desc).add_options()("csxsim-positional", po::value<std::vector<std::string>>());
    po::positional_options_description every;
    every.add("csxsim-positional", -1);
    po::variables_map read;
    po::store(po::command_line_parser(args).options(all).positional(every).style(style).run(),
              read);
    const auto given = read["csxsim-positional"].as<std::vector<std::string>>();
    const unsigned taken = positional ? positional->max_total_count() : 0;
    if (given.size() <= taken)
      throw InputError(fmt::format("too many arguments: usage: {}", usage));
    const std::string command = usage.substr(0, usage.find(' ', usage.find(' ') + 1));
    if (taken == 0)
      throw InputError(fmt::format("{} takes no argument ('{}' given): usage: {}", command,
                                   given.front(), usage));
    throw InputError(fmt::format("too many arguments: '{}' is one more than {} takes: usage: {}",
                                 given[taken], command, usage));
  } catch (const po::invalid_command_line_syntax& e) {
    if (e.kind() == po::invalid_command_line_syntax::missing_parameter)
      refuse_missing_value(args, desc, e.get_option_name());
    throw;
  }
  if (vm.count("help")) {
    std::cout << "usage: " << usage << "\n\n"
              << desc
              << "\nAn option's value is never another option (`--json --quiet` is refused); "
                 "a value that\nstarts with - and is not a number (-5, -1e3) is given as "
                 "--option=VALUE.\n";
    return std::nullopt;
  }
  try {
    po::notify(vm);
  } catch (const po::required_option& e) {
    std::string name = e.get_option_name();
    if (positional)
      for (unsigned i = 0; i < positional->max_total_count() && i < 8; ++i)
        if ("--" + positional->name_for_position(i) == name)
          throw InputError(fmt::format("missing argument {}: usage: {}",
                                       positional->name_for_position(i), usage));
    throw InputError(fmt::format("missing option {}: usage: {}", name, usage));
  }
  return vm;
}

}  // namespace csx::cli
