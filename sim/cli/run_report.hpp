// Human-readable report of a run: the candidates table and the chosen configuration.
#pragma once

#include <cstdio>

#include "app/job.hpp"

namespace csx::cli {

void print_job_header(std::FILE* out, const app::Job& job);
void print_pass(std::FILE* out, const app::Job& job, const app::PassResult& r);
// "compute 62%, CS-X I/O 40%, ..., optimizer 5% (bound: compute)": each resource's busy time
// over the step time.
[[nodiscard]] std::string busy_shares(const plan::SimulationResult& r);

}  // namespace csx::cli
