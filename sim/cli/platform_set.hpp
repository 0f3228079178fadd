// Several platforms in one sweep or plan: `--platform cs2,cs3,FILE` and named override sets
// `--variant NAME:KEY=VALUE[,KEY=VALUE...]`. Each platform runs as given and with each variant;
// the CSV's `platform` column reads "cs3" or "cs3+NAME".
#pragma once

#include <string>
#include <vector>

#include "app/platform_setup.hpp"
#include "cli/options.hpp"

namespace csx::cli {

// The --platform and --variant options of sweep and plan.
void add_platform_set_options(po::options_description& desc);

// app::platform_setups of --platform (in `base`) and --variant. Throws as it does.
[[nodiscard]] std::vector<app::PlatformSetup> expand_platforms(const po::variables_map& vm,
                                                               const app::Overrides& base,
                                                               const std::string& scenario_platform,
                                                               const std::string& data_dir);

}  // namespace csx::cli
