// One platform of a sweep or plan, with its overrides applied.
#pragma once

#include <string>

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

}  // namespace csx::app
