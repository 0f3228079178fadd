// What `csxsim sweep` prints when it finishes.
#pragma once

#include <cstdio>
#include <string>

#include "app/sweep_request.hpp"

namespace csx::cli {

// The chosen row of each point, one line each, and the totals, naming `csv`.
void print_sweep_summary(std::FILE* out, const app::SweepOutcome& s, const std::string& csv);

}  // namespace csx::cli
