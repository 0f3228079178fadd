// `csxsim sweep`: run's search over a grid of (platform, num_csx, batch_size) points, in
// parallel worker processes, shardable, resumable; one CSV with rows sorted by the point.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "app/job.hpp"
#include "app/sweep_table.hpp"
#include "cli/amounts.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
#include "cli/platform_set.hpp"
#include "cli/results_output.hpp"
#include "common/errors.hpp"
#include "common/output_lock.hpp"
#include "common/process_pool.hpp"
#include "common/short_hash.hpp"
#include "engine/simulation.hpp"
#include "input/value_list.hpp"
#include "report/atomic_file.hpp"
#include "report/results_csv.hpp"

namespace csx::cli {

namespace {

using app::check_identity;
using app::describe;
using app::PointKey;
using app::read_results_csv;
using app::SweepIdentity;
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

// One grid point's CSV rows (run in a child of the pool).
std::string point_rows(const app::Job& job) {
  std::string text;
  for (const auto& r : app::run_job(job))
    for (const auto& row : r.outcome.rows) text += io::csv_row(r.context, row);
  return text;
}

// The grid's identity, the `grid` column of a sharded sweep's rows: a short hash of the
// scenario file's bytes, the options that decide the rows (all but --csv, --json, --jobs,
// --resume, --quiet and --check-only; the value lists expanded) and the shard count. Shards of one
// sweep share it; a shard of another grid, or of the same grid cut into other shards, does not.
std::string grid_identity(const po::variables_map& vm, const std::string& scenario_file,
                          const std::vector<std::int64_t>& num_csx,
                          const std::vector<std::int64_t>& batches, std::int64_t shards) {
  std::ifstream in(scenario_file, std::ios::binary);
  std::string text(std::istreambuf_iterator<char>(in), {});
  static const std::set<std::string> ignored{"scenario",   "csv",       "json",  "jobs",
                                             "shard",      "resume",    "quiet", "num-csx",
                                             "batch-size", "check-only"};
  for (const auto& [name, value] : vm) {
    if (ignored.count(name) || value.defaulted()) continue;
    text += "\n" + name + "=";
    if (const auto* s = boost::any_cast<std::string>(&value.value()))
      text += *s;
    else if (const auto* v = boost::any_cast<std::vector<std::string>>(&value.value()))
      text += fmt::format("{}", fmt::join(*v, "\x1f"));
  }
  text += fmt::format("\nnum-csx={}\nbatch-size={}\nshards={}\n", fmt::join(num_csx, ","),
                      fmt::join(batches, ","), shards);
  return short_hash(text);
}

// The grid's jobs in canonical order (platform, num_csx, batch_size), this shard's share;
// points a rule refuses are skipped with a note (every point refused: RuleError).
std::map<PointKey, app::Job> grid_jobs(const io::Scenario& scenario,
                                       const std::vector<app::PlatformSetup>& setups,
                                       const std::vector<std::int64_t>& num_csx,
                                       const std::vector<std::int64_t>& batches,
                                       std::pair<std::int64_t, std::int64_t> shard,
                                       const std::string& grid_id, int processes_per_point,
                                       SkipNotes& refused) {
  std::map<PointKey, const app::Overrides*> grid;
  for (const auto& setup : setups)
    for (const auto n : num_csx)
      for (const auto b : batches) grid.emplace(PointKey{setup.label, n, b}, &setup.overrides);
  // Points go to shards round-robin (point k to shard k mod N), so with more shards than points
  // the shards from the grid's size on are empty: they write a CSV of the header alone, which
  // merge counts for them (a fixed-size job array needs them).
  std::map<PointKey, app::Job> pending;
  std::string first_refusal;
  std::int64_t index = 0;
  const std::string shard_text =
      shard.second > 1 ? fmt::format("{}/{}", shard.first, shard.second) : "";
  for (const auto& [key, setup] : grid) {
    if (index++ % shard.second != shard.first) continue;
    app::Overrides o = *setup;
    o.num_csx = key.num_csx;
    o.batch_size = key.batch_size;
    try {
      app::Job job = app::make_job(scenario, o, data_dir());
      job.simulation_processes = processes_per_point;
      job.shard = shard_text;
      job.grid = shard.second > 1 ? grid_id : "";
      pending.emplace(key, std::move(job));
    } catch (const RuleError& e) {
      if (first_refusal.empty()) first_refusal = e.what();
      refused.note(key, e.what());
    }
  }
  if (pending.empty() && refused.count() > 0)
    throw RuleError(fmt::format("every grid point was refused; first: {}", first_refusal));
  return pending;
}

// Each kept point must hold one row per candidate its search writes (search::candidate_sizes),
// for each pass; a point with rows missing (a file cut short or edited) is refused, naming it.
void check_complete(const std::string& csv, const SweepTable& table,
                    const std::map<PointKey, app::Job>& pending) {
  const auto mode = io::csv_column("mode"), mbs = io::csv_column("micro_batch_size");
  std::map<std::pair<PointKey, std::string>, std::set<std::string>> rows;
  table.for_each_row([&](const PointKey& key, const std::vector<std::string>& f) {
    rows[{key, f[mode]}].insert(f[mbs]);
    return true;
  });
  for (const auto& [key, text] : table.points) {
    const app::Job& job = pending.at(key);
    for (const auto& p : job.passes) {
      std::set<std::string> want;
      for (const auto m : search::candidate_sizes(app::search_request(job, p)))
        want.insert(std::to_string(m));
      const auto& got = rows[{key, model::to_string(p.pass)}];
      if (got != want)
        throw InputError(fmt::format(
            "{}: point {} ({}) has {} of its {} candidate rows: the file was cut short or "
            "edited; remove that point's rows to run it again",
            csv, describe(key), model::to_string(p.pass), got.size(), want.size()));
    }
  }
}

// --resume: the finished points of `csv`, which must be of this sweep; they leave `pending`.
SweepTable resume(const std::string& csv, std::map<PointKey, app::Job>& pending) {
  SweepTable table = read_results_csv(csv);
  const std::string grid = pending.empty() ? "" : pending.begin()->second.grid;
  for (const auto& g : table.grids)
    if (g != grid)
      throw InputError(fmt::format(
          "{}: holds rows of grid {}, this sweep's is {}: a shard of another sweep (other "
          "options, or the grid cut into other shards); refusing to mix them",
          csv, g, grid.empty() ? "(unsharded)" : grid));
  for (const auto& [key, rows] : table.points)
    if (!pending.count(key))
      throw InputError(
          fmt::format("{}: holds {}, which is not in this sweep's grid (or shard); refusing to "
                      "drop it",
                      csv, describe(key)));
  if (!pending.empty()) {
    const app::Job& job = pending.begin()->second;
    SweepIdentity id{
        job.scenario.model.label, std::to_string(job.scenario.model.seq_len), {}, {}, {}};
    for (const auto& p : job.passes) {
      id.requested.push_back(batching::to_string(p.setting));
      id.modes.emplace_back(model::to_string(p.pass));
    }
    for (const auto& [key, j] : pending) id.overrides.emplace(key.platform, j.overrides_text);
    check_identity(table, id, csv);
    for (const auto& s : table.shards)
      if (s != job.shard)
        throw InputError(
            fmt::format("{}: holds rows of shard '{}', this is shard '{}'", csv, s, job.shard));
    // Each kept point's training steps (from --steps, --tokens or the file) must be this run's.
    const auto steps = io::csv_column("steps"), mode = io::csv_column("mode");
    table.for_each_row([&](const PointKey& key, const std::vector<std::string>& f) {
      const auto& want = pending.at(key).training_steps;
      const std::string expected = want ? std::to_string(*want) : "";
      if (f[mode] == "train" && f[steps] != expected)
        throw InputError(
            fmt::format("{}: point {} was run for {} training steps, this sweep asks for {}", csv,
                        describe(key), f[steps].empty() ? "no" : f[steps],
                        expected.empty() ? "none" : expected));
      return true;
    });
    check_complete(csv, table, pending);
  }
  for (const auto& [key, rows] : table.points) pending.erase(key);
  fmt::print(stderr, "resume: {} finished points kept from {}\n", table.points.size(), csv);
  return table;
}

// --check-only: what a run of this command line would refuse, refused the same way, with
// nothing simulated or written. A sharded grid's N shards are each checked for a point no rule
// refuses (a shard with none writes no rows, which merge reads as missing); with --resume, an
// existing --csv is checked to be of this shard. Prints the grid's size (unless quiet).
int check_only(const po::variables_map& vm, const io::Scenario& scenario,
               const std::vector<app::PlatformSetup>& setups,
               const std::vector<std::int64_t>& num_csx, const std::vector<std::int64_t>& batches,
               std::pair<std::int64_t, std::int64_t> shard, const std::string& grid_id,
               const std::string& csv) {
  SkipNotes refused;
  std::size_t to_run = 0;
  std::map<PointKey, app::Job> mine;
  for (std::int64_t i = 0; i < shard.second; ++i) {
    std::map<PointKey, app::Job> pending;
    try {
      pending =
          grid_jobs(scenario, setups, num_csx, batches, {i, shard.second}, grid_id, 1, refused);
    } catch (const RuleError& e) {
      if (shard.second == 1) throw;
      throw RuleError(fmt::format("shard {}/{}: {}", i, shard.second, e.what()));
    }
    to_run += pending.size();
    if (i == shard.first) mine = std::move(pending);
  }
  refused.finish();
  if (vm.count("resume") && std::filesystem::exists(csv)) resume(csv, mine);
  if (!vm.count("quiet"))
    fmt::print(
        "sweep: check only: {} grid points ({} refused by a rule){}; {} -> {}; nothing "
        "simulated or written\n",
        to_run + refused.count(), refused.count(),
        shard.second > 1 ? fmt::format(" in {} shards", shard.second) : "",
        shard.second > 1
            ? fmt::format("shard {}/{} runs {}", shard.first, shard.second, mine.size())
            : fmt::format("{} to run", mine.size()),
        csv);
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

// Runs the pending points in the pool, `jobs` at once, into `table` (written to `csv` at most
// once a second); returns the first failure, empty if none.
std::string run_points(const std::map<PointKey, app::Job>& pending, std::int64_t jobs,
                       const std::string& csv, SweepTable& table, Progress& progress,
                       SkipNotes& refused) {
  std::vector<std::pair<PointKey, const app::Job*>> points;
  for (const auto& [key, job] : pending) points.emplace_back(key, &job);
  auto last_write = std::chrono::steady_clock::now();
  std::string failure;
  std::size_t finished = table.points.size();  // kept, run, or refused by a worker
  run_in_children(
      points.size(), PoolOptions{static_cast<int>(jobs), true},
      [&](std::size_t i) { return point_rows(*points[i].second); },
      [&](std::size_t i, ChildOutcome c) {
        const auto& key = points[i].first;
        if (c.status == 0) {
          table.points[key] = std::move(c.output);
        } else if (c.status == 2) {
          refused.note(key, c.output);
        } else if (g_signal == 0) {
          failure = fmt::format("{}: {}", describe(key),
                                c.output.empty() ? "worker process failed" : c.output);
        }
        progress.update(++finished, key);
        const auto now = std::chrono::steady_clock::now();
        if (now - last_write > std::chrono::seconds(1)) {
          io::write_file_atomically(csv, table.render());
          last_write = now;
        }
      },
      [&] { return g_signal != 0 || !failure.empty(); });
  return failure;
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
       "output CSV (rows sorted by platform, num_csx, batch_size)")
      ("json", po::value<std::string>(), "also write the CSV's records, units and inputs as JSON")
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
  const auto num_csx = io::parse_value_list((*vm)["num-csx"].as<std::string>(), "--num-csx");
  const auto batches = io::parse_value_list((*vm)["batch-size"].as<std::string>(), "--batch-size");
  const std::int64_t jobs = read_jobs(*vm, "grid points").value_or(1);
  // The CPUs left to each grid point simulate its candidates.
  const int processes_per_point =
      static_cast<int>(std::max<std::int64_t>(1, engine::available_cpus() / jobs));
  const auto shard = vm->count("shard") ? io::parse_shard((*vm)["shard"].as<std::string>())
                                        : std::pair<std::int64_t, std::int64_t>{0, 1};
  const app::Overrides base = read_overrides(*vm, true);
  const auto scenario =
      io::load_scenario(scenario_file, data_dir(), optional_count(*vm, "seq-len"));
  print_warnings(scenario);
  check_outputs_against_model(*vm, {"csv", "json"}, scenario);
  const auto setups = expand_platforms(*vm, base, scenario.platform, data_dir());
  // A fixed step count over several batch sizes trains different token budgets.
  const auto fixed_steps = base.training_steps ? base.training_steps : scenario.max_steps;
  if (fixed_steps && !base.tokens && batches.size() > 1)
    fmt::print(stderr,
               "note: time_to_train_s is for {} steps at every batch size, so the points train "
               "different numbers of samples; pass --tokens to compare one token budget\n",
               *fixed_steps);

  const std::string grid_id = grid_identity(*vm, scenario_file, num_csx, batches, shard.second);
  if (vm->count("check-only"))
    return check_only(*vm, scenario, setups, num_csx, batches, shard, grid_id, csv);
  SkipNotes refused;
  auto pending =
      grid_jobs(scenario, setups, num_csx, batches, shard, grid_id, processes_per_point, refused);
  const OutputLock lock(csv, "--csv");  // held until the CSV is final
  SweepTable table;
  if (vm->count("resume") && std::filesystem::exists(csv)) table = resume(csv, pending);
  const std::size_t kept = table.points.size(), total = pending.size() + kept;
  const bool quiet = vm->count("quiet") > 0;
  Progress progress(total, kept, isatty(STDERR_FILENO) && !quiet);
  install_handlers();
  const std::string failure = run_points(pending, jobs, csv, table, progress, refused);
  progress.finish();
  refused.finish();
  // --csv is the sweep's checkpoint: written as points finish and on an interruption, so that
  // --resume can go on (README, "Sweeps"); the finished sweep's CSV, JSON and summary land
  // together.
  if (!failure.empty() || g_signal != 0) io::write_file_atomically(csv, table.render());
  if (!failure.empty()) throw std::runtime_error(failure);
  if (g_signal != 0) {
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
  bool any_chosen = false;
  const auto chosen = io::csv_column("chosen");
  table.for_each_row([&](const PointKey&, const std::vector<std::string>& f) {
    any_chosen = f[chosen] == "true";
    return !any_chosen;
  });
  if (!table.points.empty() && !any_chosen)
    throw InfeasibleError(
        fmt::format("{}: nothing fits at any grid point (the rows say why)", csv));
  return 0;
}

}  // namespace csx::cli
