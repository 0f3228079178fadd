// platforms/*.yaml -> PlatformSpec, and --platform-override: the platform files' reader.
#pragma once

#include <yaml-cpp/yaml.h>
#include <string>
#include <utility>
#include <vector>

#include "platform/platform_spec.hpp"

namespace csx::platform {

// Loads a platform by name ("cs2", "cs3": platforms/<name>.yaml under `data_dir`) or by path.
// Throws InputError for an unknown name (with the known ones), a missing or unknown key, a key
// with no value, or a value out of range (input_workers.imagenet1k_samples_per_s: 0, or 1e-3 to
// 1e12 samples/s).
[[nodiscard]] PlatformSpec load_platform(const std::string& name_or_path,
                                         const std::string& data_dir);

// True when load_platform reads `name_or_path` as a file path (it has a '/' or ends in .yaml
// or .yml) rather than a platform name.
[[nodiscard]] bool is_platform_path(const std::string& name_or_path);

// The same from an already parsed document (`file` names it in messages).
[[nodiscard]] PlatformSpec read_platform(const YAML::Node& root, const std::string& file);

// Sets one field by key (as in the platform file: "calibration.kernel_overhead_s") from text,
// with the same checks as the loader. Throws InputError.
// `flag` names the option in messages.
void override_parameter(PlatformSpec& p, const std::string& key, const std::string& value,
                        const std::string& flag = "--platform-override");

// KEY=VALUE pairs; a key may carry a PLATFORM: prefix (that platform only).
using Overrides = std::vector<std::pair<std::string, std::string>>;

// The overrides that apply to platform `name`, in order, prefixes removed.
[[nodiscard]] Overrides overrides_for(const std::string& name, const Overrides& overrides);

// Applies overrides_for(p.name, overrides) to `p`. With `refuse_other_platforms`, a PLATFORM:
// prefix naming another platform is an InputError (a run has one platform); otherwise it is
// skipped (validate's entries, a sweep's other platforms).
void apply_overrides(PlatformSpec& p, const Overrides& overrides, bool refuse_other_platforms,
                     const std::string& flag = "--platform-override");

// Every key a platform file or --platform-override takes: "section.key", its unit, meaning and
// bounds (for `csxsim platform --keys`). The meaning of a fitted parameter
// (platform/fitted_parameters.hpp) ends in " (fitted)".
struct KeyInfo {
  std::string key, unit, meaning;
  double min = 0, max = 0;  // 0, 0 for the choices
};
[[nodiscard]] std::vector<KeyInfo> platform_keys();

// A key's value in `spec` as text. Throws InputError for an unknown key.
[[nodiscard]] std::string parameter_value(const PlatformSpec& spec, const std::string& key);

}  // namespace csx::platform
