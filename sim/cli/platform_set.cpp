// --platform LIST and --variant.
#include "cli/platform_set.hpp"

namespace csx::cli {

void add_platform_set_options(po::options_description& desc) {
  // clang-format off
  desc.add_options()
      ("variant", po::value<std::vector<std::string>>()->composing(),
       "NAME:KEY=VALUE[,KEY=VALUE...]: also run each platform with these overrides (repeatable)");
  // clang-format on
}

std::vector<app::PlatformSetup> expand_platforms(const po::variables_map& vm,
                                                 const app::Overrides& base,
                                                 const std::string& scenario_platform,
                                                 const std::string& data_dir) {
  std::vector<std::string> variants;
  if (vm.count("variant")) variants = vm["variant"].as<std::vector<std::string>>();
  return app::platform_setups(base, variants, scenario_platform, data_dir);
}

}  // namespace csx::cli
