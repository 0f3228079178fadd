// The platforms of a sweep or plan (--platform LIST, --variant): each with its overrides applied.
#pragma once

#include <string>
#include <vector>

#include "app/job.hpp"
#include "platform/platform_spec.hpp"

namespace csx::app {

// The overrides a job takes (platform, variant, the shared --platform-override ones then the
// variant's), the platform with them applied, and its label (platform_label(): "cs3",
// "cs3+io2x").
struct PlatformSetup {
  Overrides overrides;
  platform::PlatformSpec spec;
  std::string label;
};

// Loads a platform named by `value` (cs2, cs3 or a platform file) that `where` gave: a flag
// ("--platform", whose whole text `listed` holds `value`: "cs2,cs4") or a scenario key's
// location ("run.yaml:11: simulation.platform"). Throws InputError for an empty value, and for an
// unknown name or a bad file with `where` (and `listed`, for a flag) in front; a file given by a
// flag names itself.
[[nodiscard]] platform::PlatformSpec load_platform_given(const std::string& value,
                                                         const std::string& where,
                                                         const std::string& listed,
                                                         const std::string& data_dir);

// The files the setups' platforms were read from, each once.
[[nodiscard]] std::vector<std::string> platform_files(const std::vector<PlatformSetup>& setups);

// One setup per (platform, variant or none), in the order given; a variant whose keys all name
// other platforms is skipped for that platform. `base.platform` is the list ("cs2,cs3,FILE"),
// else `scenario_platform` (set at `scenario_platform_where`, empty for the default);
// `variant_texts` are NAME:KEY=VALUE[,KEY=VALUE...]; a PLATFORM: prefix applies a key to that
// platform only and must name a platform of the set. Throws InputError for a malformed or repeated
// variant, a platform listed twice, an unknown key or value (naming its flag), or a prefix naming
// no platform of the set.
[[nodiscard]] std::vector<PlatformSetup> platform_setups(
    const Overrides& base, const std::vector<std::string>& variant_texts,
    const std::string& scenario_platform, const std::string& scenario_platform_where,
    const std::string& data_dir);

}  // namespace csx::app
