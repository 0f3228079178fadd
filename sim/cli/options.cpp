// Option parsing shared by the subcommands.
#include "cli/options.hpp"

#include <fmt/format.h>
#include <iostream>

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
