// `csxsim sweep`: options, the grid of app/sweep_grid.hpp run in worker processes (shardable,
// resumable), the progress bar, the summary; one CSV with rows sorted by the point.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "app/sweep_grid.hpp"
#include "cli/amounts.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
#include "cli/option_descriptions.hpp"
#include "cli/requests.hpp"
#include "cli/results_output.hpp"
#include "common/errors.hpp"
#include "common/output_lock.hpp"
#include "input/value_list.hpp"
#include "report/atomic_file.hpp"
#include "report/results_csv.hpp"

namespace csx::cli {

namespace {

using app::describe;
using app::PointKey;
using app::SweepTable;

volatile std::sig_atomic_t g_signal = 0;
extern "C" void on_signal(int sig) {
  g_signal = sig;
}

void install_handlers() {
  g_signal = 0;  // a Python session may run several sweeps
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: waitpid returns EINTR
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// The progress bar. The ETA counts only the points run in this invocation (not those kept by
// --resume).
class Progress {
 public:
  Progress(std::size_t total, std::size_t kept, bool enabled)
      : total_(total), kept_(kept), enabled_(enabled) {}
  void update(std::size_t done, const PointKey& last) {
    if (!enabled_) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const std::size_t run_now = done > kept_ ? done - kept_ : 0;
    const double eta =
        run_now > 0 ? elapsed / static_cast<double>(run_now) * static_cast<double>(total_ - done)
                    : 0;
    const std::size_t width = 30, filled = total_ ? width * done / total_ : width;
    fmt::print(stderr, "\r[{}{}] {}/{} points  ETA {:02}:{:02}:{:02}  last: {}   ",
               std::string(filled, '#'), std::string(width - filled, '.'), done, total_,
               static_cast<int>(eta) / 3600, static_cast<int>(eta) / 60 % 60,
               static_cast<int>(eta) % 60, describe(last));
    std::fflush(stderr);
  }
  void finish() {
    if (enabled_) fmt::print(stderr, "\n");
  }
  [[nodiscard]] double elapsed_s() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::size_t total_, kept_;
  bool enabled_;
  Clock::time_point start_ = Clock::now();
};

// "note: skipped POINT: WHY" for the first kShownSkips points a rule refuses, then one line
// for the rest (a grid of 100,000 sizes would print 100,000 lines).
class SkipNotes {
 public:
  static constexpr std::size_t kShownSkips = 5;
  void note(const PointKey& key, const std::string& why) {
    if (count_++ < kShownSkips) fmt::print(stderr, "note: skipped {}: {}\n", describe(key), why);
  }
  void finish() const {
    if (count_ > kShownSkips)
      fmt::print(stderr, "note: skipped {} more points refused by a rule ({} in all)\n",
                 count_ - kShownSkips, count_);
  }
  [[nodiscard]] std::size_t count() const { return count_; }

 private:
  std::size_t count_ = 0;
};

void print_resumed(const std::string& csv, std::size_t kept) {
  fmt::print(stderr, "resume: {} finished points kept from {}\n", kept, csv);
}

// The options given that decide a sweep's rows, as app::grid_identity takes them: name and
// value text (a repeated option's values joined by \x1f; a switch's text is empty), in the
// options' alphabetical order.
std::vector<std::pair<std::string, std::string>> given_options(const SweepRequest& q) {
  std::map<std::string, std::string> given;
  const auto& o = q.options;
  const auto put = [&](const char* name, const std::optional<std::string>& v) {
    if (v) given[name] = *v;
  };
  put("micro-batch-size", o.micro_batch_size);
  put("platform", o.platform);
  put("mode", o.mode);
  put("steps", o.steps);
  put("tokens", o.tokens);
  put("sim-steps", o.sim_steps);
  put("max-explore", o.max_explore);
  put("seq-len", q.seq_len);
  if (o.compile_only) given["compile-only"] = "";
  if (!o.platform_overrides.empty())
    given["platform-override"] = fmt::format("{}", fmt::join(o.platform_overrides, "\x1f"));
  if (!q.variants.empty()) given["variant"] = fmt::format("{}", fmt::join(q.variants, "\x1f"));
  return {given.begin(), given.end()};
}

// --check-only: what a run of this command line would refuse, refused the same way, with
// nothing simulated or written. A sharded grid's N shards are each checked for a point no rule
// refuses (a shard with none writes no rows, which merge reads as missing); with --resume, an
// existing --csv is checked to be of this shard. Prints the grid's size (unless quiet).
void check_only(std::FILE* out, const SweepRequest& q, const app::GridRequest& grid) {
  const std::string& csv = q.csv;
  SkipNotes refused;
  auto check = app::check_shards(
      grid, [&](const PointKey& key, const std::string& why) { refused.note(key, why); });
  refused.finish();
  auto& mine = check.mine;
  if (q.resume && std::filesystem::exists(csv)) {
    const auto kept = app::resume(csv, mine);
    print_resumed(csv, kept.points.size());
  }
  const auto [shard, shards] = grid.shard;
  if (!q.quiet)
    fmt::print(out,
               "sweep: check only: {} grid points ({} refused by a rule){}; {} -> {}; nothing "
               "simulated or written\n",
               check.to_run + refused.count(), refused.count(),
               shards > 1 ? fmt::format(" in {} shards", shards) : "",
               shards > 1 ? fmt::format("shard {}/{} runs {}", shard, shards, mine.size())
                          : fmt::format("{} to run", mine.size()),
               csv == io::kStandardOutput ? "standard output" : csv);
}

// The chosen row of each point, one line each, and the totals.
void print_summary(std::FILE* out, const SweepTable& table, std::size_t run_now, std::size_t kept,
                   std::size_t refused, double elapsed_s, const std::string& csv) {
  const auto col = [](const char* name) { return io::csv_column(name); };
  const std::size_t chosen = col("chosen"), mbs = col("micro_batch_size"),
                    step = col("step_time_s"), sps = col("samples_per_s"), mfu = col("mfu"),
                    bound = col("bound"), ttt = col("time_to_train_s"), mode = col("mode");
  fmt::print(out, "{:<16} {:>8} {:>10} {:>6} {:>8} {:>12} {:>12} {:>7} {:>14}  {}\n", "platform",
             "num_csx", "batch_size", "mode", "MBS", "step_time_s", "samples/s", "MFU",
             "time_to_train", "bound");
  std::set<std::pair<PointKey, std::string>> with_choice;
  const auto text = [](const io::Value& v) { return io::field_text(v); };
  // A chosen row is simulated, its timings set (read_results_csv refuses one without); a null
  // reads as NaN rather than throwing.
  const auto real = [](const io::Value& v) {
    const double* x = std::get_if<double>(&v);
    return x ? *x : std::numeric_limits<double>::quiet_NaN();
  };
  table.for_each_row([&](const PointKey& key, const io::Record& f) {
    if (f[chosen] != io::Value(true)) return true;
    with_choice.emplace(key, text(f[mode]));
    fmt::print(out, "{:<16} {:>8} {:>10} {:>6} {:>8} {:>12.4f} {:>12.2f} {:>6.1f}% {:>14}  {}\n",
               key.platform, key.num_csx, key.batch_size, text(f[mode]), text(f[mbs]),
               real(f[step]), real(f[sps]), 100 * real(f[mfu]),
               std::get_if<double>(&f[ttt]) ? human_duration(real(f[ttt])) : "-", text(f[bound]));
    return true;
  });
  table.for_each_row([&](const PointKey& key, const io::Record& f) {
    if (with_choice.emplace(key, text(f[mode])).second)
      fmt::print(out, "{:<16} {:>8} {:>10} {:>6} {:>8}  nothing fits\n", key.platform, key.num_csx,
                 key.batch_size, text(f[mode]), "-");
    return true;
  });
  fmt::print(out,
             "sweep: {} points ({} run now, {} kept from before, {} refused) in {:.1f} s -> {}\n",
             table.points.size(), run_now, kept, refused, elapsed_s, csv);
}

}  // namespace

SweepOutcome execute_sweep(const SweepRequest& q, std::FILE* out) {
  if (!q.options.num_csx || !q.options.batch_size)
    throw InputError(
        "sweep needs --num-csx LIST and --batch-size LIST (e.g. 1:16:x2 and "
        "264,528)");
  const std::string& csv = q.csv;
  // --csv is the checkpoint --resume reads; standard output gets the rows once, at the end.
  const bool csv_to_stdout = csv == io::kStandardOutput;
  if (csv_to_stdout && q.resume)
    throw InputError(
        "--csv - with --resume: --resume keeps the points of an existing --csv file, and "
        "standard output is none; name a file");
  const auto num_csx = io::parse_value_list(*q.options.num_csx, "--num-csx");
  const auto batches = io::parse_value_list(*q.options.batch_size, "--batch-size");
  const std::int64_t jobs = read_jobs(q.jobs, "grid points").value_or(1);
  const auto shard =
      q.shard ? io::parse_shard(*q.shard) : std::pair<std::int64_t, std::int64_t>{0, 1};
  const app::Overrides base = read_overrides(q.options, true);
  const auto scenario =
      io::load_scenario(q.scenario_file, data_dir(), optional_count(q.seq_len, "--seq-len"));
  print_warnings(scenario);
  for (const auto& [path, flag] : {std::pair{q.csv, "--csv"}, std::pair{q.json, "--json"}})
    if (!path.empty() && path != io::kStandardOutput)
      io::check_output_path(path, flag, model_files(scenario.model));
  auto setups = app::platform_setups(base, q.variants, scenario.platform, data_dir());
  if (const auto fixed_steps = app::fixed_steps_across_batches(base, scenario, batches.size()))
    fmt::print(stderr,
               "note: time_to_train_s is for {} steps at every batch size, so the points train "
               "different numbers of samples; pass --tokens to compare one token budget\n",
               *fixed_steps);

  const app::GridRequest grid{
      scenario,
      std::move(setups),
      num_csx,
      batches,
      shard,
      app::grid_identity(q.scenario_file, given_options(q), num_csx, batches, shard.second),
      app::processes_per_point(jobs),
      data_dir()};
  SweepOutcome s;
  if (q.check_only) {
    check_only(out, q, grid);
    s.checked_only = true;
    return s;
  }
  SkipNotes refused;
  const auto note = [&](const PointKey& key, const std::string& why) { refused.note(key, why); };
  auto pending = app::grid_jobs(grid, note);
  if (!csv_to_stdout) s.csv_lock = std::make_shared<OutputLock>(csv, "--csv");
  SweepTable& table = s.table;
  if (q.resume && std::filesystem::exists(csv)) {
    table = app::resume(csv, pending);
    print_resumed(csv, table.points.size());
  }
  s.kept = table.points.size();
  s.total = pending.size() + s.kept;
  Progress progress(s.total, s.kept, isatty(STDERR_FILENO) && !q.quiet);
  install_handlers();
  const std::string failure =
      app::run_points(pending, jobs, csv, table,
                      {[&](std::size_t done, const PointKey& last) { progress.update(done, last); },
                       note, [] { return g_signal != 0; }});
  progress.finish();
  refused.finish();
  // --csv is the sweep's checkpoint: written as points finish and on an interruption, so that
  // --resume can go on (docs/sweeps.md#sweeps); the finished sweep's CSV, JSON and summary land
  // together.
  if ((!failure.empty() || g_signal != 0) && !csv_to_stdout)
    io::write_file_atomically(csv, table.render());
  if (!failure.empty()) throw std::runtime_error(failure);
  s.signal = g_signal;
  s.refused = refused.count();
  s.elapsed_s = progress.elapsed_s();
  s.inputs = sweep_inputs(q.scenario_file, scenario, base, num_csx, batches, shard);
  if (!q.variants.empty()) s.inputs["variants"] = q.variants;
  return s;
}

void print_sweep_summary(std::FILE* out, const SweepOutcome& s, const std::string& csv) {
  print_summary(out, s.table, s.table.points.size() - s.kept, s.kept, s.refused, s.elapsed_s, csv);
}

std::string sweep_infeasible(const SweepOutcome& s, const std::string& csv) {
  // Exit 1, as run does, when no grid point has a candidate that fits.
  if (!s.table.points.empty() && !app::any_chosen(s.table))
    return fmt::format("{}: nothing fits at any grid point (the rows say why)",
                       csv == io::kStandardOutput ? "the sweep" : csv);
  return "";
}

int sweep_command(const Args& args) {
  po::options_description desc("sweep options");
  add_command_options(desc, "sweep");
  const auto pos = command_arguments("sweep");
  const auto vm = parse_options(
      args,
      "csxsim sweep SCENARIO --num-csx LIST --batch-size LIST [--micro-batch-size SETTING] "
      "[--platform P1,P2,...] [--variant NAME:KEY=VALUE,...] [--mode ...] [--steps S | --tokens T] "
      "--csv OUT [--jobs J] [--shard I/N] [--resume] [--check-only]",
      desc, &pos);
  if (!vm) return 0;
  if (!vm->count("num-csx") || !vm->count("batch-size"))
    throw InputError(
        "sweep needs --num-csx LIST and --batch-size LIST (e.g. 1:16:x2 and "
        "264,528)");
  SweepRequest q;
  read_given(q, given_options(*vm, "sweep"));
  q.json = output_paths(*vm, {"csv", "json"}, {q.scenario_file})["json"];
  // With --csv - or --json -, standard output carries the data alone: no summary.
  q.quiet = vm->count("quiet") > 0 || (data_on_stdout(*vm) && !q.check_only);
  const auto s = execute_sweep(q, stdout);
  if (s.checked_only) return 0;
  if (s.signal != 0) {
    if (q.csv == io::kStandardOutput)
      fmt::print(stderr,
                 "csxsim: interrupted: {} of {} points finished; --csv - writes nothing before "
                 "the end\n",
                 s.table.points.size(), s.total);
    else
      fmt::print(stderr,
                 "csxsim: interrupted: {} of {} points finished and kept in {}; run again with "
                 "--resume to finish\n",
                 s.table.points.size(), s.total, q.csv);
    return 128 + s.signal;
  }
  io::OutputFiles files;
  files.stage(q.csv, s.table.render());
  if (!q.json.empty())
    stage_results_json(files, q.json, s.inputs, io::candidate_columns(), s.table.records());
  if (!q.quiet) print_sweep_summary(stdout, s, q.csv);
  files.commit();
  if (const auto why = sweep_infeasible(s, q.csv); !why.empty()) throw InfeasibleError(why);
  return 0;
}

}  // namespace csx::cli
