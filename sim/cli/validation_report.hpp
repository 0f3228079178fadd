// What `csxsim validate` prints: each check of the fit data (app/validation.hpp) with its table
// and summary (docs/calibration.md#accuracy).
#pragma once

#include <cstdio>

#include "app/validate_request.hpp"

namespace csx::cli {

// Reads the reference and runs its checks, printing the report to `out`. Throws as
// app::read_reference does, and InputError for an unknown --platform-override key.
[[nodiscard]] app::ValidateOutcome print_validation(const app::ValidateRequest& request,
                                                    std::FILE* out);

}  // namespace csx::cli
