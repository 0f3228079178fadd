// Human-readable report of a run: the candidates table and the chosen configuration.
#pragma once

#include <cstdio>

#include "cli/run_job.hpp"

namespace csx::cli {

void print_job_header(std::FILE* out, const Job& job);
void print_pass(std::FILE* out, const Job& job, const PassResult& r);

}  // namespace csx::cli
