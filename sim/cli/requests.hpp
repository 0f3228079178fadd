// run, plan, sweep and validate as requests and their results, shared by the CLI (the
// *_command functions) and the Python module (docs/python.md#python): a request is built from
// the flags or from the keyword arguments; the values are the flags' text, read (and refused,
// naming the flag) by the same code.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/cluster_plan.hpp"
#include "app/job.hpp"
#include "cli/job_options.hpp"

namespace csx::cli {

struct RunRequest {
  std::string scenario_file;
  JobOptionTexts options;
  std::optional<std::string> seq_len, jobs;  // --seq-len (tokens), --jobs (processes)
  std::string csv, json, trace;              // output files; "" for none
  std::optional<std::string> trace_systems, trace_max_events;
};

struct RunResult {
  app::Overrides overrides;
  app::Job job;
  std::vector<app::PassResult> results;  // one per pass
};

// Reads the request (InputError naming the flag for a bad value), loads the scenario (its
// warnings on stderr), app::make_job, checks the output files against the inputs,
// app::run_job; a pass's notice goes to stderr. Throws as those do.
[[nodiscard]] RunResult execute_run(const RunRequest& request);

// The table `csxsim run` prints: the job's header and each pass's candidates.
void print_run(std::FILE* out, const RunResult& run);

// Writes the request's --csv, --json and --trace files (all or none). Throws InputError for a
// trace above --trace-max-events.
void write_run_outputs(const RunRequest& request, const RunResult& run);

// The message of run's InfeasibleError when a pass has no fitting candidate; empty otherwise.
[[nodiscard]] std::string run_infeasible(const RunRequest& request, const RunResult& run);

// --- plan ---

struct PlanRequest {
  std::string model;  // scenario, Model Zoo file or models/ name
  // num_csx and batch_size are lists; tokens is required.
  JobOptionTexts options;
  std::optional<std::string> deadline, max_num_csx, seq_len, jobs;
  std::vector<std::string> variants;  // NAME:KEY=VALUE[,KEY=VALUE...]
  std::string csv, json;              // output files; "" for none
};

struct PlanOutcome {
  std::string model_path;
  std::optional<double> deadline_s;
  nlohmann::ordered_json inputs;  // the --json inputs
  app::PlanResult result;
  std::vector<std::string> answers;  // the answer lines, without the final "answer: "
};

// The request's model file, once the options that must come together do (InputError otherwise).
[[nodiscard]] std::string plan_model_path(const PlanRequest& request);
// Reads the request, loads the model and runs app::plan_clusters. Throws as they do.
[[nodiscard]] PlanOutcome execute_plan(const PlanRequest& request, const std::string& model_path);
// The table (to `table`, unless null), then the answers and the final answer line to `answers`.
void print_plan(std::FILE* table, std::FILE* answers, const PlanOutcome& plan);
void write_plan_outputs(const PlanRequest& request, const PlanOutcome& plan);
// The message of plan's InfeasibleError when no cluster answers; empty otherwise.
[[nodiscard]] std::string plan_infeasible(const PlanOutcome& plan);

// --- validate ---

struct ValidateRequest {
  std::optional<std::string> reference;         // default: default_reference()
  std::vector<std::string> platform_overrides;  // [PLATFORM:]KEY=VALUE
  std::optional<std::string> only, only_platform;
  bool measurements_only = false;
  std::string csv, json;  // output files; "" for none
};

struct ValidateOutcome {
  std::string csv;                // the rows (one per measured run), with the header
  nlohmann::ordered_json inputs;  // the --json inputs
  int failed = 0;                 // checks that failed (the CLI's exit status 1)
};

// platforms/calibration/measurements.yaml of the data folder.
[[nodiscard]] std::string default_reference();
// Reads the reference and runs its checks, printing the report to `out`. Throws as
// app::read_reference does.
[[nodiscard]] ValidateOutcome execute_validate(const ValidateRequest& request, std::FILE* out);
void write_validate_outputs(const ValidateRequest& request, const ValidateOutcome& v);

}  // namespace csx::cli
