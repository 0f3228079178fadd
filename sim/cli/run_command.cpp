// `csxsim run SCENARIO`: resolve, search and simulate; print the table, write the CSV.
#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <filesystem>

#include "app/job.hpp"
#include "cli/amounts.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
#include "cli/option_descriptions.hpp"
#include "cli/requests.hpp"
#include "cli/results_output.hpp"
#include "cli/run_report.hpp"
#include "common/errors.hpp"
#include "common/whole_number.hpp"
#include "engine/simulation.hpp"
#include "input/value_list.hpp"
#include "report/atomic_file.hpp"
#include "report/results_csv.hpp"
#include "report/trace_json.hpp"

namespace csx::cli {

// --trace-max-events' default, and the bytes an event takes in the JSON (measured: 501 MB for
// 1.94 M events of GPT-3 XL on 64 CS-3 at MBS 1).
constexpr std::int64_t kTraceMaxEvents = 500000;
constexpr double kTraceEventBytes = 258;

// The chosen candidate's timeline, recorded by the simulation that produced its row.
void write_trace(io::OutputFiles& out, const std::string& path, const app::Job& job,
                 const app::PassResult& r) {
  const auto& chosen = r.outcome.rows[*r.outcome.chosen];
  out.stage(path,
            io::chrome_trace_json(
                chosen.sim.trace,
                fmt::format("{} on {} x {}, {} MBS {}; busy share of the step: {}", r.context.model,
                            job.num_csx, job.platform_label, model::to_string(r.context.pass),
                            chosen.micro_batch_size, busy_shares(chosen.sim))));
}

// --trace-systems LIST: indices 1 to num_csx - 1 (csx-0 is always shown), ascending, once each.
std::vector<std::int64_t> read_trace_systems(const std::string& text, bool trace,
                                             std::int64_t num_csx) {
  if (!trace) throw InputError(fmt::format("--trace-systems = {}: needs --trace", text));
  auto systems = io::parse_value_list(text, "--trace-systems");
  for (const auto s : systems)
    if (s >= num_csx)
      throw InputError(fmt::format(
          "--trace-systems = {}: system {} is not below num_csx ({}; csx-0 is the first)", text, s,
          num_csx));
  std::sort(systems.begin(), systems.end());
  systems.erase(std::unique(systems.begin(), systems.end()), systems.end());
  return systems;
}

RunResult execute_run(const RunRequest& q) {
  RunResult run;
  run.overrides = read_overrides(q.options);
  const auto& overrides = run.overrides;
  if (overrides.platform && overrides.platform->find(',') != std::string::npos)
    throw InputError(fmt::format(
        "--platform {}: run takes one platform; sweep and plan take a list", *overrides.platform));
  const auto scenario =
      io::load_scenario(q.scenario_file, data_dir(), optional_count(q.seq_len, "--seq-len"));
  print_warnings(scenario);
  run.job = app::make_job(scenario, overrides, data_dir());
  auto& job = run.job;
  job.simulation_processes = static_cast<int>(read_jobs(q.jobs, "simulations").value_or(0));
  const bool want_trace = !q.trace.empty();
  job.record_trace = want_trace;
  if (q.trace_systems)
    job.trace_systems = read_trace_systems(*q.trace_systems, want_trace, job.num_csx);
  if (q.trace_max_events && !want_trace)
    throw InputError("--trace-max-events bounds --trace; without it it does nothing");
  (void)optional_count(q.trace_max_events, "--trace-max-events");
  // Now that the model and platform files are known, none of them may be overwritten either.
  auto inputs = model_files(scenario.model);
  inputs.insert(inputs.end(), {q.scenario_file, job.platform.source});
  if (!q.csv.empty() && q.csv != io::kStandardOutput) io::check_output_path(q.csv, "--csv", inputs);
  if (want_trace) io::check_output_path(q.trace, "--trace", inputs);
  if (!q.json.empty() && q.json != io::kStandardOutput)
    io::check_output_path(q.json, "--json", inputs);
  run.results = app::run_job(job);
  // A setting moved to a supported value is said on standard error, also with --quiet.
  for (const auto& r : run.results)
    if (!r.notice.empty())
      fmt::print(stderr, "notice: {} pass: {}\n", model::to_string(r.context.pass), r.notice);
  return run;
}

void print_run(std::FILE* out, const RunResult& run) {
  print_job_header(out, run.job);
  for (const auto& r : run.results) print_pass(out, run.job, r);
}

void write_run_outputs(const RunRequest& q, const RunResult& run) {
  const auto& results = run.results;
  const auto& job = run.job;
  io::OutputFiles files;
  const auto records =
      q.csv.empty() && q.json.empty() ? std::vector<io::Record>{} : run_records(results);
  if (!q.csv.empty()) files.stage(q.csv, run_csv_text(records));
  if (!q.json.empty())
    stage_results_json(files, q.json, run_inputs(q.scenario_file, job, run.overrides),
                       io::candidate_columns(), records);
  const std::int64_t max_events =
      optional_count(q.trace_max_events, "--trace-max-events").value_or(kTraceMaxEvents);
  if (!q.trace.empty() && results.front().outcome.chosen) {
    const auto& r = results.front();
    const auto events = r.outcome.rows[*r.outcome.chosen].sim.trace.size();
    if (static_cast<std::int64_t>(events) > max_events)
      throw InputError(fmt::format(
          "--trace {}: the chosen candidate's timeline has {} events, more than "
          "--trace-max-events {} (about {:.0f} MB; trace viewers load a few hundred MB at most); "
          "nothing written. Trace fewer steps (--sim-steps), a larger micro_batch_size or fewer "
          "systems, or raise --trace-max-events",
          q.trace, events, max_events, static_cast<double>(events) * kTraceEventBytes / 1e6));
    write_trace(files, q.trace, job, r);
  }
  files.commit();
}

std::string run_infeasible(const RunRequest& q, const RunResult& run) {
  for (const auto& r : run.results)
    if (!r.outcome.chosen)
      return fmt::format(
          "{}: no micro_batch_size fits for {} (batch_size {}, num_csx {}, micro_batch_size {}): "
          "{}",
          q.scenario_file, model::to_string(r.context.pass), r.context.batch_size,
          r.context.num_csx, r.context.requested_micro_batch_size,
          r.outcome.rows.empty() ? "" : r.outcome.rows.back().reason);
  return "";
}

int run_command(const Args& args) {
  po::options_description desc("run options");
  add_command_options(desc, "run");
  const auto pos = command_arguments("run");
  const auto vm = parse_options(args, "csxsim run SCENARIO [options]", desc, &pos);
  if (!vm) return 0;
  RunRequest q;
  read_given(q, given_options(*vm, "run"));
  auto out = output_paths(*vm, {"csv", "trace", "json"}, {q.scenario_file});
  q.csv = out["csv"];
  q.trace = out["trace"];
  q.json = out["json"];
  const auto run = execute_run(q);
  // With --csv - or --json -, standard output carries the data alone.
  if (vm->count("quiet") == 0 && !data_on_stdout(*vm)) print_run(stdout, run);
  write_run_outputs(q, run);
  if (const auto why = run_infeasible(q, run); !why.empty()) throw InfeasibleError(why);
  return 0;
}

}  // namespace csx::cli
