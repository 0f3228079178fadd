// `csxsim options`: the option table (app/option_table.hpp) as the Markdown table of
// docs/cli.md#options, one row per option and way a set of commands takes it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <string>
#include <tuple>
#include <vector>

#include "app/option_table.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"

namespace csx::cli {

namespace {

using app::CommandOption;

// A table cell: `|` escaped, as Markdown needs inside a table.
std::string cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out.empty() ? "-" : out;
}

// The commands that take an option the same way: its help, type, short form and surface.
struct Row {
  CommandOption option;
  std::vector<std::string_view> commands;
};

bool same_way(const CommandOption& a, const CommandOption& b) {
  return std::tie(a.help, a.type, a.default_text, a.short_flag, a.surface, a.argument,
                  a.cli_required, a.python_required) ==
         std::tie(b.help, b.type, b.default_text, b.short_flag, b.surface, b.argument,
                  b.cli_required, b.python_required);
}

std::vector<Row> rows_of(const app::OptionSpec& spec) {
  std::vector<Row> rows;
  for (const auto command : app::option_commands())
    for (const auto& o : app::command_options(command)) {
      if (o.spec != &spec) continue;
      auto it = rows.begin();
      while (it != rows.end() && !same_way(it->option, o)) ++it;
      if (it == rows.end())
        rows.push_back({o, {command}});
      else
        it->commands.push_back(command);
    }
  return rows;
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string value_cell(const CommandOption& o) {
  std::string text(app::type_name(o.type));
  if (o.argument)
    return text + "; the command's argument (also `--" + std::string(o.spec->flag) + "`)";
  if (o.cli_required && o.python_required) return text + "; required";
  if (o.cli_required) return text + "; required on the command line";
  if (o.python_required) return text + "; required";
  return text;
}

std::string markdown() {
  std::string out =
      "| option | Python | value | default | unit | commands | meaning |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const auto& spec : app::option_specs())
    for (const auto& [o, commands] : rows_of(spec)) {
      std::string flag = o.on_cli() ? fmt::format("`--{}`", spec.flag) : "-";
      if (o.argument) flag = fmt::format("`{}`", upper(spec.flag));
      if (o.on_cli() && o.short_flag) flag += fmt::format(", `-{}`", o.short_flag);
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", flag,
                         o.in_python() ? fmt::format("`{}`", spec.keyword) : "-",
                         cell(value_cell(o)), cell(o.default_text), cell(spec.unit),
                         fmt::format("{}", fmt::join(commands, ", ")), cell(o.help));
    }
  return out;
}

}  // namespace

int options_command(const Args& args) {
  po::options_description desc("options");
  const auto vm = parse_options(args, "csxsim options", desc);
  if (!vm) return 0;
  fmt::print("{}", markdown());
  return 0;
}

}  // namespace csx::cli
