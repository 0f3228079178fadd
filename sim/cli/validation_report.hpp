// What `csxsim validate` prints: each check of the fit data (app::execute_validate) with its
// table and summary (docs/calibration.md#accuracy).
#pragma once

#include <cstdio>

#include "app/validate_request.hpp"

namespace csx::cli {

// The report of a validation to `out`: the platform overrides in effect, each group of measured
// runs, the auto decisions, memory facts and preferences.
void print_validation(std::FILE* out, const app::ValidateRequest& request,
                      const app::ValidateOutcome& v);

}  // namespace csx::cli
