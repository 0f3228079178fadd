// `sweep`: the request from the options given; the grid of app/sweep_grid.hpp run in worker
// processes (shardable, resumable), with its progress bar and notes on standard error.
#include "app/sweep_request.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>

#include "app/data_folder.hpp"
#include "app/job_options.hpp"
#include "app/platform_setup.hpp"
#include "app/results_output.hpp"
#include "app/sweep_grid.hpp"
#include "common/errors.hpp"
#include "input/value_list.hpp"
#include "report/atomic_file.hpp"

namespace csx::app {

namespace {

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

// The options given that decide a sweep's rows, as grid_identity takes them: name and value
// text (a repeated option's values joined by \x1f; a switch's text is empty), in the options'
// alphabetical order.
std::vector<std::pair<std::string, std::string>> row_options(const GivenOptions& given) {
  std::map<std::string, std::string> out;
  for (const char* name : {"micro-batch-size", "platform", "mode", "steps", "tokens", "sim-steps",
                           "max-explore", "seq-len", "input-rate"})
    if (const auto v = given.text(name)) out[name] = *v;
  if (given.has("compile-only")) out["compile-only"] = "";
  for (const char* name : {"platform-override", "variant"})
    if (const auto v = given.texts(name); !v.empty())
      out[name] = fmt::format("{}", fmt::join(v, "\x1f"));
  return {out.begin(), out.end()};
}

// --check-only: what a run of this command line would refuse, refused the same way, with
// nothing simulated or written. A sharded grid's N shards are each checked for a point no rule
// refuses (a shard with none writes no rows, which merge reads as missing); with --resume, an
// existing --csv is checked to be of this shard. Prints the grid's size (unless quiet).
void check_only(std::FILE* out, const SweepRequest& q, const GridRequest& grid) {
  const std::string& csv = q.csv;
  SkipNotes refused;
  auto check = check_shards(
      grid, [&](const PointKey& key, const std::string& why) { refused.note(key, why); });
  refused.finish();
  auto& mine = check.mine;
  if (q.resume && std::filesystem::exists(csv)) {
    const auto kept = resume(csv, mine, grid.grid_id);
    print_resumed(csv, kept.points.size());
  }
  const auto [shard, shards] = grid.shard;
  if (!q.quiet)
    fmt::print(out,
               "sweep: check only: {} grid point{} ({} refused by a rule){}; {} -> {}; nothing "
               "simulated or written\n",
               check.to_run + refused.count(), check.to_run + refused.count() == 1 ? "" : "s",
               refused.count(), shards > 1 ? fmt::format(" in {} shards", shards) : "",
               shards > 1 ? fmt::format("shard {}/{} runs {}", shard, shards, mine.size())
                          : fmt::format("{} to run", mine.size()),
               csv == io::kStandardOutput ? "standard output" : csv);
}

}  // namespace

SweepRequest read_sweep_request(const GivenOptions& given) {
  if (!given.has("num-csx") || !given.has("batch-size"))
    throw InputError(
        "sweep needs --num-csx LIST and --batch-size LIST (e.g. 1:16:x2 and "
        "264,528)");
  SweepRequest q;
  // A file, or a models/ name ("gpt3_xl"), as describe and plan take.
  if (const auto s = given.text("scenario"); s && !s->empty())
    q.scenario_file = resolve_model_path(*s);
  if (const auto csv = given.text("csv")) q.csv = *csv;
  q.resume = given.has("resume");
  if (q.csv == io::kStandardOutput && q.resume)
    throw InputError(
        "--csv - with --resume: --resume keeps the points of an existing --csv file, and "
        "standard output is none; name a file");
  q.num_csx = io::parse_value_list(*given.text("num-csx"), "--num-csx");
  q.batch_sizes = io::parse_value_list(*given.text("batch-size"), "--batch-size");
  q.jobs = read_jobs(given.text("jobs"), "grid points").value_or(1);
  if (const auto shard = given.text("shard")) q.shard = io::parse_shard(*shard);
  q.overrides = read_overrides(given, true);
  q.seq_len = optional_count(given.text("seq-len"), "--seq-len");
  q.variants = given.texts("variant");
  q.row_options = row_options(given);
  q.json = given.text("json").value_or("");
  q.check_only = given.has("check-only");
  q.quiet = given.has("quiet");
  return q;
}

SweepOutcome execute_sweep(const SweepRequest& q, std::FILE* out) {
  const std::string& csv = q.csv;
  // --csv is the checkpoint --resume reads; standard output gets the rows once, at the end.
  const bool csv_to_stdout = csv == io::kStandardOutput;
  const auto& num_csx = q.num_csx;
  const auto& batches = q.batch_sizes;
  const auto& shard = q.shard;
  const auto& base = q.overrides;
  const auto scenario = io::load_scenario(q.scenario_file, data_dir(), q.seq_len);
  print_warnings(scenario);
  auto setups =
      platform_setups(base, q.variants, scenario.platform, scenario.platform_where, data_dir());
  const auto inputs = input_files(q.scenario_file, scenario, platform_files(setups));
  check_outputs({{q.csv, "--csv"}, {q.json, "--json"}}, inputs);
  if (const auto fixed_steps = fixed_steps_across_batches(base, scenario, batches.size()))
    fmt::print(stderr,
               "note: time_to_train_s is for {} steps at every batch size, so the points train "
               "different numbers of samples; pass --tokens to compare one token budget\n",
               *fixed_steps);

  const GridRequest grid{scenario,
                         std::move(setups),
                         num_csx,
                         batches,
                         shard,
                         grid_identity(inputs, q.row_options, num_csx, batches, shard.second),
                         processes_per_point(q.jobs),
                         data_dir()};
  SweepOutcome s;
  if (q.check_only) {
    check_only(out, q, grid);
    s.checked_only = true;
    return s;
  }
  SkipNotes refused;
  const auto note = [&](const PointKey& key, const std::string& why) { refused.note(key, why); };
  auto pending = grid_jobs(grid, note);
  if (!csv_to_stdout) s.csv_lock = std::make_shared<OutputLock>(csv, "--csv");
  SweepTable& table = s.table;
  if (q.resume && std::filesystem::exists(csv)) {
    table = resume(csv, pending, grid.grid_id);
    print_resumed(csv, table.points.size());
  }
  s.kept = table.points.size();
  s.total = pending.size() + s.kept;
  Progress progress(s.total, s.kept, isatty(STDERR_FILENO) && !q.quiet);
  install_handlers();
  const std::string failure =
      run_points(pending, q.jobs, csv, table,
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

std::string sweep_infeasible(const SweepOutcome& s, const std::string& csv) {
  // Exit 1, as run does, when no grid point has a candidate that fits.
  if (!s.table.points.empty() && !any_chosen(s.table))
    return fmt::format("{}: nothing fits at any grid point (the rows say why)",
                       csv == io::kStandardOutput ? "the sweep" : csv);
  return "";
}

void stage_sweep_outputs(io::OutputFiles& files, const SweepRequest& q, const SweepOutcome& s) {
  files.stage(q.csv, s.table.render());
  if (!q.json.empty())
    stage_results_json(files, q.json, s.inputs, io::candidate_columns(), s.table.records());
}

}  // namespace csx::app
