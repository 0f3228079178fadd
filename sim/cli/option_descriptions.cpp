// The option table as Boost.Program_options descriptions.
#include "cli/option_descriptions.hpp"

#include <string>
#include <vector>

namespace csx::cli {

namespace {

using app::ValueType;

bool repeatable(ValueType type) {
  return type == ValueType::kKeyValues || type == ValueType::kRanges ||
         type == ValueType::kVariants || type == ValueType::kFiles;
}

// "num-csx" or "output,o", as Boost names an option with its short form.
std::string boost_name(const app::CommandOption& o) {
  std::string name(o.spec->flag);
  if (o.short_flag) name += std::string(",") + o.short_flag;
  return name;
}

}  // namespace

void add_command_options(po::options_description& desc, std::string_view command) {
  for (const auto& o : app::command_options(command)) {
    if (!o.on_cli()) continue;
    const std::string name = boost_name(o), help(o.help);
    if (o.type == ValueType::kSwitch) {
      desc.add_options()(name.c_str(), help.c_str());
      continue;
    }
    if (repeatable(o.type)) {
      auto* value = po::value<std::vector<std::string>>();
      if (o.type == ValueType::kFiles)
        value->multitoken();
      else
        value->composing();
      if (o.cli_required) value->required();
      desc.add_options()(name.c_str(), value, help.c_str());
      continue;
    }
    auto* value = po::value<std::string>();
    if (o.cli_required) value->required();
    desc.add_options()(name.c_str(), value, help.c_str());
  }
}

po::positional_options_description command_arguments(std::string_view command) {
  po::positional_options_description pos;
  for (const auto& o : app::command_options(command))
    if (o.argument && o.on_cli())
      pos.add(std::string(o.spec->flag).c_str(), o.type == ValueType::kFiles ? -1 : 1);
  return pos;
}

app::GivenOptions given_options(const po::variables_map& vm, std::string_view command) {
  app::GivenOptions given;
  for (const auto& o : app::command_options(command)) {
    const std::string flag(o.spec->flag);
    if (!o.on_cli() || !vm.count(flag)) continue;
    if (o.type == ValueType::kSwitch)
      given.set(flag, {});
    else if (repeatable(o.type))
      given.set(flag, vm[flag].as<std::vector<std::string>>());
    else
      given.set(flag, {vm[flag].as<std::string>()});
  }
  return given;
}

}  // namespace csx::cli
