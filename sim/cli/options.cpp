// Option parsing shared by the subcommands.
#include "cli/options.hpp"
#include "common/whole_number.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "batching/mbs_setting.hpp"
#include "common/did_you_mean.hpp"
#include "common/errors.hpp"

namespace csx::cli {

std::optional<po::variables_map> parse_options(
    const Args& args, const std::string& usage, po::options_description& desc,
    const po::positional_options_description* positional) {
  desc.add_options()("help,h", "show this help");
  po::variables_map vm;
  static const po::positional_options_description none;
  // No guessing of abbreviated options: `--mode` must not be read as `--model`.
  auto parser =
      po::command_line_parser(args)
          .options(desc)
          .positional(positional ? *positional : none)
          .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing);
  try {
    po::store(parser.run(), vm);
  } catch (const po::unknown_option& e) {
    std::vector<std::string> names;
    for (const auto& o : desc.options()) names.push_back("--" + o->long_name());
    std::string given = e.get_option_name();
    throw InputError(fmt::format("unrecognised option '{}'{}", given,
                                 did_you_mean(given.substr(0, given.find('=')), names)));
  } catch (const po::too_many_positional_options_error&) {
    throw InputError(fmt::format("too many arguments: usage: {}", usage));
  }
  if (vm.count("help")) {
    std::cout << "usage: " << usage << "\n\n" << desc << "\n";
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

namespace csx::cli {

std::string data_dir() {
  if (const char* env = std::getenv("CSXSIM_DATA_DIR"); env && *env) return env;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && exe.filename() == "csxsim") {
    const fs::path tree = exe.parent_path() / CSXSIM_DATA_DIR_FROM_BINARY;
    if (fs::is_directory(tree / "platforms", ec) && fs::is_directory(tree / "models", ec)) {
      std::string dir = tree.lexically_normal().string();
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      return dir;
    }
  }
  return CSXSIM_DATA_DIR;
}

std::string resolve_model_path(const std::string& arg) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(arg, ec) || arg.find('/') != std::string::npos || arg.ends_with(".yaml"))
    return arg;
  const fs::path models = fs::path(data_dir()) / "models";
  const fs::path shipped = models / (arg + ".yaml");
  if (fs::exists(shipped, ec)) return shipped.string();
  std::vector<std::string> stems;
  for (const auto& f : fs::directory_iterator(models, ec))
    stems.push_back(f.path().stem().string());
  std::sort(stems.begin(), stems.end());
  throw InputError(fmt::format("{}: no such file, and no model of that name in models/{}", arg,
                               did_you_mean(arg, stems)));
}

std::optional<std::int64_t> optional_count(const po::variables_map& vm, const std::string& flag) {
  if (!vm.count(flag)) return std::nullopt;
  return csx::parse_whole(vm[flag].as<std::string>(), "--" + flag, 1);
}

void print_warnings(const io::Scenario& scenario) {
  for (const auto& w : scenario.warnings) fmt::print(stderr, "warning: {}\n", w);
}

}  // namespace csx::cli
