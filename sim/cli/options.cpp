// Option parsing shared by the subcommands.
#include "cli/options.hpp"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>

#include "batching/mbs_setting.hpp"

namespace csx::cli {

std::optional<po::variables_map> parse_options(const Args& args, const std::string& usage,
                                               po::options_description& desc,
                                               const po::positional_options_description* positional) {
  desc.add_options()("help,h", "show this help");
  po::variables_map vm;
  auto parser = po::command_line_parser(args).options(desc);
  if (positional) parser.positional(*positional);
  po::store(parser.run(), vm);
  if (vm.count("help")) {
    std::cout << "usage: " << usage << "\n\n" << desc << "\n";
    return std::nullopt;
  }
  po::notify(vm);
  return vm;
}

}  // namespace csx::cli

namespace csx::cli {

std::string data_dir() {
  if (const char* env = std::getenv("CSXSIM_DATA_DIR"); env && *env) return env;
  return CSXSIM_DATA_DIR;
}

std::string resolve_model_path(const std::string& arg) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(arg, ec) || arg.find('/') != std::string::npos || arg.ends_with(".yaml"))
    return arg;
  const fs::path shipped = fs::path(data_dir()) / "models" / (arg + ".yaml");
  return fs::exists(shipped, ec) ? shipped.string() : arg;
}

std::optional<std::int64_t> optional_count(const po::variables_map& vm, const std::string& flag) {
  if (!vm.count(flag)) return std::nullopt;
  return batching::parse_positive_int(vm[flag].as<std::string>(), "--" + flag);
}

}  // namespace csx::cli
