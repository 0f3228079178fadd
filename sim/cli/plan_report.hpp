// What `csxsim plan` prints: the table of evaluated clusters, the answer lines and the final
// answer.
#pragma once

#include <cstdio>

#include "app/plan_request.hpp"

namespace csx::cli {

// The table (to `table`, unless null), then the answers and the final answer line to `answers`.
// A note (the time to train is not monotone in num_csx) goes to standard error, as warnings do.
void print_plan(std::FILE* table, std::FILE* answers, const app::PlanOutcome& plan);

}  // namespace csx::cli
