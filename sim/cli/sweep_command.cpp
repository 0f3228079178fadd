// `csxsim sweep`: options, the grid of app/sweep_grid.hpp run in worker processes (shardable,
// resumable), the progress bar, the summary; one CSV with rows sorted by the point.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "app/sweep_grid.hpp"
#include "cli/amounts.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
#include "cli/platform_set.hpp"
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
// value text (a repeated option's values joined by \x1f), in the options' order.
std::vector<std::pair<std::string, std::string>> given_options(const po::variables_map& vm) {
  std::vector<std::pair<std::string, std::string>> given;
  for (const auto& [name, value] : vm) {
    if (value.defaulted()) continue;
    std::string text;
    if (const auto* s = boost::any_cast<std::string>(&value.value()))
      text = *s;
    else if (const auto* v = boost::any_cast<std::vector<std::string>>(&value.value()))
      text = fmt::format("{}", fmt::join(*v, "\x1f"));
    given.emplace_back(name, std::move(text));
  }
  return given;
}

// --check-only: what a run of this command line would refuse, refused the same way, with
// nothing simulated or written. A sharded grid's N shards are each checked for a point no rule
// refuses (a shard with none writes no rows, which merge reads as missing); with --resume, an
// existing --csv is checked to be of this shard. Prints the grid's size (unless quiet).
int check_only(const po::variables_map& vm, const app::GridRequest& grid, const std::string& csv) {
  SkipNotes refused;
  auto check = app::check_shards(
      grid, [&](const PointKey& key, const std::string& why) { refused.note(key, why); });
  refused.finish();
  auto& mine = check.mine;
  if (vm.count("resume") && std::filesystem::exists(csv)) {
    const auto kept = app::resume(csv, mine);
    print_resumed(csv, kept.points.size());
  }
  const auto [shard, shards] = grid.shard;
  if (!vm.count("quiet"))
    fmt::print(
        "sweep: check only: {} grid points ({} refused by a rule){}; {} -> {}; nothing "
        "simulated or written\n",
        check.to_run + refused.count(), refused.count(),
        shards > 1 ? fmt::format(" in {} shards", shards) : "",
        shards > 1 ? fmt::format("shard {}/{} runs {}", shard, shards, mine.size())
                   : fmt::format("{} to run", mine.size()),
        csv == io::kStandardOutput ? "standard output" : csv);
  return 0;
}

// The chosen row of each point, one line each, and the totals.
void print_summary(const SweepTable& table, std::size_t run_now, std::size_t kept,
                   std::size_t refused, double elapsed_s, const std::string& csv) {
  const auto col = [](const char* name) { return io::csv_column(name); };
  const std::size_t chosen = col("chosen"), mbs = col("micro_batch_size"),
                    step = col("step_time_s"), sps = col("samples_per_s"), mfu = col("mfu"),
                    bound = col("bound"), ttt = col("time_to_train_s"), mode = col("mode");
  fmt::print("{:<16} {:>8} {:>10} {:>6} {:>8} {:>12} {:>12} {:>7} {:>14}  {}\n", "platform",
             "num_csx", "batch_size", "mode", "MBS", "step_time_s", "samples/s", "MFU",
             "time_to_train", "bound");
  std::set<std::pair<PointKey, std::string>> with_choice;
  table.for_each_row([&](const PointKey& key, const std::vector<std::string>& f) {
    if (f[chosen] != "true") return true;
    with_choice.emplace(key, f[mode]);
    fmt::print("{:<16} {:>8} {:>10} {:>6} {:>8} {:>12.4f} {:>12.2f} {:>6.1f}% {:>14}  {}\n",
               key.platform, key.num_csx, key.batch_size, f[mode], f[mbs], std::stod(f[step]),
               std::stod(f[sps]), 100 * std::stod(f[mfu]),
               f[ttt].empty() ? "-" : human_duration(std::stod(f[ttt])), f[bound]);
    return true;
  });
  table.for_each_row([&](const PointKey& key, const std::vector<std::string>& f) {
    if (with_choice.emplace(key, f[mode]).second)
      fmt::print("{:<16} {:>8} {:>10} {:>6} {:>8}  nothing fits\n", key.platform, key.num_csx,
                 key.batch_size, f[mode], "-");
    return true;
  });
  fmt::print("sweep: {} points ({} run now, {} kept from before, {} refused) in {:.1f} s -> {}\n",
             table.points.size(), run_now, kept, refused, elapsed_s, csv);
}

}  // namespace

int sweep_command(const Args& args) {
  po::options_description desc("sweep options");
  std::string scenario_file, csv, num_list, batch_list;
  // clang-format off
  desc.add_options()("scenario", po::value(&scenario_file)->required(),
                     "scenario or Model Zoo params file");
  // clang-format on
  add_job_options(desc, true);
  add_platform_set_options(desc);
  // clang-format off
  desc.add_options()
      ("csv", po::value(&csv)->required(),
       "output CSV (rows sorted by platform, num_csx, batch_size); - for standard output, "
       "written at the end, with no summary and no --resume")
      ("json", po::value<std::string>(),
       "also write the CSV's records, units and inputs as JSON (- for standard output)")
      ("jobs,j", po::value<std::string>(), "grid points simulated in parallel (default 1)")
      ("shard", po::value<std::string>(), "I/N: run only points with index % N == I")
      ("resume", "keep the finished points already in --csv and run the rest")
      ("check-only", "check the inputs, grid, shards and outputs; simulate and write nothing")
      ("quiet,q", "no progress bar and no summary");
  // clang-format on
  po::positional_options_description pos;
  pos.add("scenario", 1);
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
  const std::string json = output_paths(*vm, {"csv", "json"}, {scenario_file})["json"];
  // --csv is the checkpoint --resume reads; standard output gets the rows once, at the end.
  const bool csv_to_stdout = csv == io::kStandardOutput;
  if (csv_to_stdout && vm->count("resume"))
    throw InputError(
        "--csv - with --resume: --resume keeps the points of an existing --csv file, and "
        "standard output is none; name a file");
  const auto num_csx = io::parse_value_list((*vm)["num-csx"].as<std::string>(), "--num-csx");
  const auto batches = io::parse_value_list((*vm)["batch-size"].as<std::string>(), "--batch-size");
  const std::int64_t jobs = read_jobs(*vm, "grid points").value_or(1);
  const auto shard = vm->count("shard") ? io::parse_shard((*vm)["shard"].as<std::string>())
                                        : std::pair<std::int64_t, std::int64_t>{0, 1};
  const app::Overrides base = read_overrides(*vm, true);
  const auto scenario =
      io::load_scenario(scenario_file, data_dir(), optional_count(*vm, "seq-len"));
  print_warnings(scenario);
  check_outputs_against_model(*vm, {"csv", "json"}, scenario);
  auto setups = expand_platforms(*vm, base, scenario.platform, data_dir());
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
      app::grid_identity(scenario_file, given_options(*vm), num_csx, batches, shard.second),
      app::processes_per_point(jobs),
      data_dir()};
  if (vm->count("check-only")) return check_only(*vm, grid, csv);
  SkipNotes refused;
  const auto note = [&](const PointKey& key, const std::string& why) { refused.note(key, why); };
  auto pending = app::grid_jobs(grid, note);
  std::optional<OutputLock> lock;  // held until the CSV is final
  if (!csv_to_stdout) lock.emplace(csv, "--csv");
  SweepTable table;
  if (vm->count("resume") && std::filesystem::exists(csv)) {
    table = app::resume(csv, pending);
    print_resumed(csv, table.points.size());
  }
  const std::size_t kept = table.points.size(), total = pending.size() + kept;
  // With --csv - or --json -, standard output carries the data alone: no summary.
  const bool quiet = vm->count("quiet") > 0 || data_on_stdout(*vm);
  Progress progress(total, kept, isatty(STDERR_FILENO) && !quiet);
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
  if (g_signal != 0) {
    if (csv_to_stdout)
      fmt::print(stderr,
                 "csxsim: interrupted: {} of {} points finished; --csv - writes nothing before "
                 "the end\n",
                 table.points.size(), total);
    else
      fmt::print(stderr,
                 "csxsim: interrupted: {} of {} points finished and kept in {}; run again with "
                 "--resume to finish\n",
                 table.points.size(), total, csv);
    return 128 + g_signal;
  }
  io::OutputFiles files;
  files.stage(csv, table.render());
  if (!json.empty()) {
    auto inputs = sweep_inputs(scenario_file, scenario, base, num_csx, batches, shard);
    if (vm->count("variant")) inputs["variants"] = (*vm)["variant"].as<std::vector<std::string>>();
    stage_results_json(files, json, inputs, table.render());
  }
  if (!quiet)
    print_summary(table, table.points.size() - kept, kept, refused.count(), progress.elapsed_s(),
                  csv);
  files.commit();
  // Exit 1, as run does, when no grid point has a candidate that fits.
  if (!table.points.empty() && !app::any_chosen(table))
    throw InfeasibleError(fmt::format("{}: nothing fits at any grid point (the rows say why)",
                                      csv == io::kStandardOutput ? "the sweep" : csv));
  return 0;
}

}  // namespace csx::cli
