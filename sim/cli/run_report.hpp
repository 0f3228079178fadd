// Human-readable report of a run: the candidates table and the chosen configuration.
#pragma once

#include <cstdio>

#include "app/run_request.hpp"

namespace csx::cli {

// The table `csxsim run` prints: the job's header and each pass's candidates.
void print_run(std::FILE* out, const app::RunResult& run);

}  // namespace csx::cli
