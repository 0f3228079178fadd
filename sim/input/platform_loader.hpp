// platforms/*.yaml -> PlatformSpec, and --platform-override: the platform files' reader.
#pragma once

#include <yaml-cpp/yaml.h>
#include <string>
#include <utility>
#include <vector>

#include "platform/platform_spec.hpp"

namespace csx::platform {

// Loads a platform by name ("cs2", "cs3": platforms/<name>.yaml under `data_dir`) or by path.
// Throws InputError for an unknown name (with the known ones), a missing or unknown key, or a
// value out of range.
[[nodiscard]] PlatformSpec load_platform(const std::string& name_or_path,
                                         const std::string& data_dir);

// The same from an already parsed document (`file` names it in messages).
[[nodiscard]] PlatformSpec read_platform(const YAML::Node& root, const std::string& file);

// Sets one field by key (as in the platform file: "calibration.kernel_overhead_s") from text,
// with the same checks as the loader. Throws InputError.
void override_parameter(PlatformSpec& p, const std::string& key, const std::string& value);

// Applies KEY=VALUE overrides (every platform) and PLATFORM:KEY=VALUE ones (that platform only)
// to `p`, in order. With `refuse_other_platforms`, a PLATFORM: prefix naming another platform
// is an InputError (a run has one platform); otherwise it is skipped (validate's entries).
void apply_overrides(PlatformSpec& p,
                     const std::vector<std::pair<std::string, std::string>>& overrides,
                     bool refuse_other_platforms);

// Every key a platform file or --platform-override takes: "section.key", its unit, meaning and
// bounds (for `csxsim platform --keys`).
struct KeyInfo {
  std::string key, unit, meaning;
  double min = 0, max = 0;  // 0, 0 for the choices
};
[[nodiscard]] std::vector<KeyInfo> platform_keys();

// A key's value in `spec` as text. Throws InputError for an unknown key.
[[nodiscard]] std::string parameter_value(const PlatformSpec& spec, const std::string& key);

}  // namespace csx::platform
