// `csxsim run SCENARIO`: resolve, search and simulate; print the table, write the CSV.
#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <filesystem>

#include "app/job.hpp"
#include "cli/amounts.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
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

void add_job_options(po::options_description& desc, bool grid) {
  const char* num_csx =
      grid ? "num_csx values (LIST: 1,2,4 or 1:64:x2)" : "number of CS-X systems N";
  const char* batch = grid ? "global batch sizes (LIST of samples: 264,528 or 64:1024:x2)"
                           : "global batch size B (samples)";
  const char* platform =
      grid ? "cs2 | cs3 | platform file, or a list of them: cs2,cs3" : "cs2 | cs3 | platform file";
  // clang-format off
  desc.add_options()
      ("num-csx", po::value<std::string>(), num_csx)
      ("batch-size", po::value<std::string>(), batch)
      ("micro-batch-size", po::value<std::string>(), "auto | explore | none | INT | MIN:MAX")
      ("platform", po::value<std::string>(), platform)
      ("mode", po::value<std::string>(), "train | eval | train_and_eval")
      ("compile-only", "compile-only mode (required by explore)")
      ("steps", po::value<std::string>(), "training steps, for time to train")
      ("tokens", po::value<std::string>(),
       "token budget, for time to train: steps = ceil(tokens / (batch x seq_len)); e.g. 1e12, 300B")
      ("sim-steps", po::value<std::string>(), "steps to simulate (2 to 100, default 2)")
      ("max-explore", po::value<std::string>(),
       "explore tries at most this many sizes (default 10000); more is refused")
      ("seq-len", po::value<std::string>(), "sequence length override (tokens)")
      ("platform-override", po::value<std::vector<std::string>>()->composing(),
       "KEY=VALUE, e.g. calibration.step_overhead_s=0.1 (repeatable)");
  // clang-format on
}

std::optional<std::int64_t> optional_count(const std::optional<std::string>& text,
                                           const std::string& flag) {
  if (!text) return std::nullopt;
  return csx::parse_whole(*text, flag, 1);
}

std::optional<std::int64_t> read_jobs(const std::optional<std::string>& text, const char* what) {
  const auto jobs = optional_count(text, "--jobs");
  if (jobs && *jobs > kMaxJobs)
    throw InputError(fmt::format("--jobs = {}: at most {} {} run at once", *jobs, kMaxJobs, what));
  return jobs;
}

std::optional<std::int64_t> read_jobs(const po::variables_map& vm, const char* what) {
  return read_jobs(vm.count("jobs") ? std::optional(vm["jobs"].as<std::string>()) : std::nullopt,
                   what);
}

JobOptionTexts job_option_texts(const po::variables_map& vm) {
  const auto text = [&](const char* flag) {
    return vm.count(flag) ? std::optional(vm[flag].as<std::string>()) : std::nullopt;
  };
  JobOptionTexts t;
  t.num_csx = text("num-csx");
  t.batch_size = text("batch-size");
  t.micro_batch_size = text("micro-batch-size");
  t.platform = text("platform");
  t.mode = text("mode");
  t.steps = text("steps");
  t.tokens = text("tokens");
  t.sim_steps = text("sim-steps");
  t.max_explore = text("max-explore");
  t.compile_only = vm.count("compile-only") > 0;
  if (vm.count("platform-override"))
    t.platform_overrides = vm["platform-override"].as<std::vector<std::string>>();
  return t;
}

app::Overrides read_overrides(const po::variables_map& vm, bool grid) {
  return read_overrides(job_option_texts(vm), grid);
}

app::Overrides read_overrides(const JobOptionTexts& t, bool grid) {
  app::Overrides o;
  if (!grid) {
    o.num_csx = optional_count(t.num_csx, "--num-csx");
    o.batch_size = optional_count(t.batch_size, "--batch-size");
  }
  if (t.micro_batch_size)
    o.micro_batch_size = batching::parse_mbs_setting(*t.micro_batch_size, "--micro-batch-size");
  o.platform = t.platform;
  if (t.mode) o.mode = io::parse_mode(*t.mode, "--mode");
  o.compile_only = t.compile_only;
  o.training_steps = optional_count(t.steps, "--steps");
  o.max_explore = optional_count(t.max_explore, "--max-explore");
  if (t.tokens) {
    if (o.training_steps)
      throw InputError("--steps and --tokens both set the training length: pass one");
    o.tokens = parse_amount(*t.tokens, "--tokens");
  }
  if (t.sim_steps) {
    // A whole number of any sign goes to make_job's range check (2 to 100), which names it.
    o.simulated_steps = parse_whole(*t.sim_steps, "--sim-steps");
  }
  for (const auto& kv : t.platform_overrides) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos)
      throw InputError(fmt::format("--platform-override {}: expected KEY=VALUE", kv));
    o.platform_overrides.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return o;
}

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
  RunRequest q;
  // clang-format off
  desc.add_options()("scenario", po::value(&q.scenario_file)->required(),
                     "scenario or Model Zoo params file");
  // clang-format on
  add_job_options(desc);
  // clang-format off
  desc.add_options()
      ("csv", po::value<std::string>(),
       "write one row per candidate to this CSV file (- for standard output, then no table)")
      ("json", po::value<std::string>(),
       "write the CSV's records, units and inputs as JSON (- for standard output)")
      ("trace", po::value<std::string>(),
       "write a Chrome trace-event JSON of the chosen candidate's simulated steps")
      ("trace-systems", po::value<std::string>(),
       "beyond 64 systems, CS-X systems shown besides csx-0 (LIST of indices)")
      ("trace-max-events", po::value<std::string>(),
       "refuse a trace of more events than this (default 500000, about 130 MB)")
      ("jobs,j", po::value<std::string>(),
       "simulation processes at once (default: one per CPU; at most 2 are used)")
      ("quiet,q", "print nothing on stdout (errors and notices still go to stderr)");
  // clang-format on
  po::positional_options_description pos;
  pos.add("scenario", 1);
  const auto vm = parse_options(args, "csxsim run SCENARIO [options]", desc, &pos);
  if (!vm) return 0;
  auto out = output_paths(*vm, {"csv", "trace", "json"}, {q.scenario_file});
  q.csv = out["csv"];
  q.trace = out["trace"];
  q.json = out["json"];
  q.options = job_option_texts(*vm);
  const auto text = [&](const char* flag) {
    return vm->count(flag) ? std::optional((*vm)[flag].as<std::string>()) : std::nullopt;
  };
  q.seq_len = text("seq-len");
  q.jobs = text("jobs");
  q.trace_systems = text("trace-systems");
  q.trace_max_events = text("trace-max-events");
  const auto run = execute_run(q);
  // With --csv - or --json -, standard output carries the data alone.
  if (vm->count("quiet") == 0 && !data_on_stdout(*vm)) print_run(stdout, run);
  write_run_outputs(q, run);
  if (const auto why = run_infeasible(q, run); !why.empty()) throw InfeasibleError(why);
  return 0;
}

}  // namespace csx::cli
