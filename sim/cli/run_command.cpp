// `csxsim run SCENARIO`: resolve, search and simulate; print the table, write the CSV.
#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <filesystem>

#include "app/job.hpp"
#include "cli/amounts.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
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

std::optional<std::int64_t> read_jobs(const po::variables_map& vm, const char* what) {
  const auto jobs = optional_count(vm, "jobs");
  if (jobs && *jobs > kMaxJobs)
    throw InputError(fmt::format("--jobs = {}: at most {} {} run at once", *jobs, kMaxJobs, what));
  return jobs;
}

app::Overrides read_overrides(const po::variables_map& vm, bool grid) {
  app::Overrides o;
  if (!grid) {
    o.num_csx = optional_count(vm, "num-csx");
    o.batch_size = optional_count(vm, "batch-size");
  }
  if (vm.count("micro-batch-size"))
    o.micro_batch_size =
        batching::parse_mbs_setting(vm["micro-batch-size"].as<std::string>(), "--micro-batch-size");
  if (vm.count("platform")) o.platform = vm["platform"].as<std::string>();
  if (vm.count("mode")) o.mode = io::parse_mode(vm["mode"].as<std::string>(), "--mode");
  o.compile_only = vm.count("compile-only") > 0;
  o.training_steps = optional_count(vm, "steps");
  o.max_explore = optional_count(vm, "max-explore");
  if (vm.count("tokens")) {
    if (o.training_steps)
      throw InputError("--steps and --tokens both set the training length: pass one");
    o.tokens = parse_amount(vm["tokens"].as<std::string>(), "--tokens");
  }
  if (vm.count("sim-steps")) {
    // A whole number of any sign goes to make_job's range check (2 to 100), which names it.
    o.simulated_steps = parse_whole(vm["sim-steps"].as<std::string>(), "--sim-steps");
  }
  if (vm.count("platform-override"))
    for (const auto& kv : vm["platform-override"].as<std::vector<std::string>>()) {
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
std::vector<std::int64_t> read_trace_systems(const po::variables_map& vm, std::int64_t num_csx) {
  const auto text = vm["trace-systems"].as<std::string>();
  if (!vm.count("trace"))
    throw InputError(fmt::format("--trace-systems = {}: needs --trace", text));
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

int run_command(const Args& args) {
  po::options_description desc("run options");
  std::string scenario_file;
  // clang-format off
  desc.add_options()("scenario", po::value(&scenario_file)->required(),
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
  auto out = output_paths(*vm, {"csv", "trace", "json"}, {scenario_file});
  const std::string &csv = out["csv"], &trace = out["trace"], &json = out["json"];
  const bool want_csv = !csv.empty(), want_trace = !trace.empty();
  const auto overrides = read_overrides(*vm);
  if (overrides.platform && overrides.platform->find(',') != std::string::npos)
    throw InputError(fmt::format(
        "--platform {}: run takes one platform; sweep and plan take a list", *overrides.platform));
  const auto scenario =
      io::load_scenario(scenario_file, data_dir(), optional_count(*vm, "seq-len"));
  print_warnings(scenario);
  app::Job job = app::make_job(scenario, overrides, data_dir());
  job.simulation_processes = static_cast<int>(read_jobs(*vm, "simulations").value_or(0));
  job.record_trace = want_trace;
  if (vm->count("trace-systems")) job.trace_systems = read_trace_systems(*vm, job.num_csx);
  if (vm->count("trace-max-events") && !want_trace)
    throw InputError("--trace-max-events bounds --trace; without it it does nothing");
  const std::int64_t max_events = optional_count(*vm, "trace-max-events").value_or(kTraceMaxEvents);
  // Now that the model and platform files are known, none of them may be overwritten either.
  auto inputs = model_files(scenario.model);
  inputs.insert(inputs.end(), {scenario_file, job.platform.source});
  if (want_csv && csv != io::kStandardOutput) io::check_output_path(csv, "--csv", inputs);
  if (want_trace) io::check_output_path(trace, "--trace", inputs);
  if (!json.empty() && json != io::kStandardOutput) io::check_output_path(json, "--json", inputs);
  const auto results = app::run_job(job);

  // A setting moved to a supported value is said on standard error, also with --quiet.
  for (const auto& r : results)
    if (!r.notice.empty())
      fmt::print(stderr, "notice: {} pass: {}\n", model::to_string(r.context.pass), r.notice);
  // With --csv - or --json -, standard output carries the data alone.
  const bool quiet = vm->count("quiet") > 0 || data_on_stdout(*vm);
  if (!quiet) {
    print_job_header(stdout, job);
    for (const auto& r : results) print_pass(stdout, job, r);
  }
  io::OutputFiles files;
  if (want_csv) files.stage(csv, run_csv_text(results));
  if (!json.empty())
    stage_results_json(files, json, run_inputs(scenario_file, job, overrides),
                       run_csv_text(results));
  if (want_trace && results.front().outcome.chosen) {
    const auto& r = results.front();
    const auto events = r.outcome.rows[*r.outcome.chosen].sim.trace.size();
    if (static_cast<std::int64_t>(events) > max_events)
      throw InputError(fmt::format(
          "--trace {}: the chosen candidate's timeline has {} events, more than "
          "--trace-max-events {} (about {:.0f} MB; trace viewers load a few hundred MB at most); "
          "nothing written. Trace fewer steps (--sim-steps), a larger micro_batch_size or fewer "
          "systems, or raise --trace-max-events",
          trace, events, max_events, static_cast<double>(events) * kTraceEventBytes / 1e6));
    write_trace(files, trace, job, r);
  }
  files.commit();
  for (const auto& r : results)
    if (!r.outcome.chosen)
      throw InfeasibleError(fmt::format(
          "{}: no micro_batch_size fits for {} (batch_size {}, num_csx {}, micro_batch_size {}): "
          "{}",
          scenario_file, model::to_string(r.context.pass), r.context.batch_size, r.context.num_csx,
          r.context.requested_micro_batch_size,
          r.outcome.rows.empty() ? "" : r.outcome.rows.back().reason));
  return 0;
}

}  // namespace csx::cli
