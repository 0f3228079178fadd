// `run`: the request from the options given, the job, its outputs.
#include "app/run_request.hpp"

#include <fmt/format.h>

#include "app/data_folder.hpp"
#include "app/job_options.hpp"
#include "app/results_output.hpp"
#include "common/errors.hpp"
#include "engine/simulation.hpp"
#include "input/value_list.hpp"
#include "report/atomic_file.hpp"
#include "report/results_csv.hpp"
#include "report/trace_json.hpp"

namespace csx::app {
namespace {

// The bytes an event takes in the trace JSON (measured: 501 MB for 1.94 M events of GPT-3 XL
// on 64 CS-3 at MBS 1).
constexpr double kTraceEventBytes = 258;

// The chosen candidate's timeline, recorded by the simulation that produced its row.
void write_trace(io::OutputFiles& out, const std::string& path, const Job& job,
                 const PassResult& r) {
  const auto& chosen = r.outcome.rows[*r.outcome.chosen];
  out.stage(path,
            io::chrome_trace_json(
                chosen.sim.trace,
                fmt::format("{} on {} x {}, {} MBS {}; busy share of the step: {}", r.context.model,
                            job.num_csx, job.platform_label, model::to_string(r.context.pass),
                            chosen.micro_batch_size, busy_shares(chosen.sim))));
}

}  // namespace

RunRequest read_run_request(const GivenOptions& given) {
  RunRequest q;
  // A file, or a models/ name ("gpt3_xl"), as describe and plan take.
  if (const auto s = given.text("scenario"); s && !s->empty())
    q.scenario_file = resolve_model_path(*s);
  q.overrides = read_overrides(given);
  if (const auto& p = q.overrides.platform; p && p->find(',') != std::string::npos)
    throw InputError(
        fmt::format("--platform {}: run takes one platform; sweep and plan take a list", *p));
  q.seq_len = optional_count(given.text("seq-len"), "--seq-len");
  q.jobs = static_cast<int>(read_jobs(given.text("jobs"), "simulations").value_or(0));
  q.csv = given.text("csv").value_or("");
  q.json = given.text("json").value_or("");
  q.trace = given.text("trace").value_or("");
  if (const auto text = given.text("trace-systems")) {
    if (q.trace.empty())
      throw InputError(fmt::format("--trace-systems = {}: needs --trace", *text));
    q.trace_systems_text = text;
    // csx-0, the fullest system, is always traced: the list names the others.
    for (const auto& part : io::split(*text, ','))
      if (part == "0")
        throw InputError(
            fmt::format("--trace-systems = {}: csx-0 is always in the trace; list "
                        "the systems beyond it (1 to num_csx - 1)",
                        *text));
    q.trace_systems = io::parse_value_list(*text, "--trace-systems");
  }
  if (const auto text = given.text("trace-max-events")) {
    if (q.trace.empty())
      throw InputError("--trace-max-events bounds --trace; without it it does nothing");
    q.trace_max_events = *optional_count(text, "--trace-max-events");
  }
  return q;
}

RunResult execute_run(const RunRequest& q) {
  RunResult run;
  const auto scenario = io::load_scenario(q.scenario_file, data_dir(), q.seq_len);
  print_warnings(scenario);
  run.job = make_job(scenario, q.overrides, data_dir());
  auto& job = run.job;
  job.simulation_processes = q.jobs;
  job.record_trace = !q.trace.empty();
  job.trace_max_events = q.trace_max_events;
  for (const auto s : q.trace_systems)
    if (s >= job.num_csx)
      throw InputError(fmt::format(
          "--trace-systems = {}: system {} is not below num_csx ({}; csx-0 is the first)",
          *q.trace_systems_text, s, job.num_csx));
  job.trace_systems = q.trace_systems;
  io::sort_unique(job.trace_systems);
  if (q.trace_systems_text && job.num_csx <= engine::kTracedSystems)
    fmt::print(stderr,
               "note: --trace-systems {}: every system is in the trace up to {} (num_csx {}); "
               "the list picks systems beyond that\n",
               *q.trace_systems_text, engine::kTracedSystems, job.num_csx);
  // Now that the model and platform files are known, none of them may be overwritten either.
  check_outputs({{q.csv, "--csv"}, {q.trace, "--trace"}, {q.json, "--json"}},
                input_files(q.scenario_file, scenario, {job.platform.source}));
  // A num_csx not given is said on standard error, also with --quiet (as the notices below).
  if (job.num_csx_defaulted)
    fmt::print(stderr, "note: num_csx is not set in {}; using 1 (pass --num-csx)\n",
               job.scenario.file);
  run.results = run_job(job);
  // A setting moved to a supported value is said on standard error, also with --quiet.
  for (const auto& r : run.results)
    if (!r.notice.empty())
      fmt::print(stderr, "notice: {} pass: {}\n", model::to_string(r.context.pass), r.notice);
  // A trace above the limit is refused before anything is printed or written.
  if (const auto& r = run.results.front(); !q.trace.empty() && r.outcome.chosen) {
    const bool bound = r.outcome.trace_events_at_least > 0;  // refused before simulating it
    const auto events =
        bound ? r.outcome.trace_events_at_least
              : static_cast<std::int64_t>(r.outcome.rows[*r.outcome.chosen].sim.trace.size());
    if (events > q.trace_max_events)
      throw InputError(fmt::format(
          "--trace {}: the chosen candidate's timeline has {}{} events, more than "
          "--trace-max-events {} (about {:.0f} MB; trace viewers load a few hundred MB at most); "
          "nothing written. Trace fewer steps (--sim-steps), a larger micro_batch_size or fewer "
          "systems, or raise --trace-max-events",
          q.trace, bound ? "at least " : "", events, q.trace_max_events,
          static_cast<double>(events) * kTraceEventBytes / 1e6));
  }
  return run;
}

void write_run_outputs(const RunRequest& q, const RunResult& run) {
  const auto& results = run.results;
  const auto& job = run.job;
  io::OutputFiles files;
  const auto records =
      q.csv.empty() && q.json.empty() ? std::vector<io::Record>{} : run_records(results);
  if (!q.csv.empty()) files.stage(q.csv, run_csv_text(records));
  if (!q.json.empty())
    stage_results_json(files, q.json, run_inputs(q.scenario_file, job, q.overrides),
                       io::candidate_columns(), records);
  if (!q.trace.empty() && results.front().outcome.chosen)
    write_trace(files, q.trace, job, results.front());
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

}  // namespace csx::app
