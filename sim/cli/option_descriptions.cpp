// The option table as Boost.Program_options descriptions.
#include "cli/option_descriptions.hpp"

#include <map>
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

namespace {

// Each command's usage line, as --help and its errors print it.
const std::map<std::string_view, std::string_view> kUsage{
    {"calibrate",
     "csxsim calibrate [--cross-validate [--group model|family|run]] [--write | --check] [--free "
     "KEY:LOW:HIGH ...] [--reference FILE]"},
    {"candidates", "csxsim candidates --batch-size B --num-csx N [--micro-batch-size M] [--json]"},
    {"columns", "csxsim columns [results|validate] [--json]"},
    {"describe",
     "csxsim describe MODEL_OR_PARAMS_FILE [--platform cs2|cs3|FILE] [--seq-len S] [--json]"},
    {"merge", "csxsim merge A.csv B.csv ... -o ALL.csv"},
    {"plan",
     "csxsim plan MODEL --tokens T (--deadline D | --num-csx LIST) [--batch-size LIST] [--platform "
     "P1,P2] [--variant NAME:KEY=VALUE,...] [--csv OUT]"},
    {"platform", "csxsim platform [cs2|cs3|FILE ...] --keys"},
    {"run", "csxsim run SCENARIO [options]"},
    {"sweep",
     "csxsim sweep SCENARIO --num-csx LIST --batch-size LIST [--micro-batch-size SETTING] "
     "[--platform P1,P2,...] [--variant NAME:KEY=VALUE,...] [--mode ...] [--steps S | --tokens T] "
     "--csv OUT [--jobs J] [--shard I/N] [--resume] [--check-only]"},
    {"validate",
     "csxsim validate [--reference FILE] [--platform-override [P:]KEY=VALUE ...] [--only-platform "
     "P] [--only NAMES] [--measurements-only] [--csv FILE] [--json FILE] [--cross-validate "
     "[--group model|family|run]]"},
};

}  // namespace

std::optional<po::variables_map> parse_command(const Args& args, std::string_view command) {
  const std::string usage(kUsage.at(command));
  po::options_description desc(std::string(command) + " options");
  add_command_options(desc, command);
  const auto pos = command_arguments(command);
  return parse_options(args, usage, desc, pos.max_total_count() > 0 ? &pos : nullptr);
}

}  // namespace csx::cli
