// The sweep grid: (platform, num_csx, batch_size) points expanded from the value lists, their
// jobs, this shard's share, resuming from a CSV, and running the points in worker processes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/job.hpp"
#include "app/platform_setup.hpp"
#include "app/sweep_table.hpp"
#include "input/scenario.hpp"

namespace csx::app {

// What a sweep runs: every (setup, num_csx, batch) point of the lists (values as expanded by
// io::parse_value_list; batches in samples), shard I of N.
struct GridRequest {
  io::Scenario scenario;
  std::vector<PlatformSetup> setups;
  std::vector<std::int64_t> num_csx;
  std::vector<std::int64_t> batches;
  std::pair<std::int64_t, std::int64_t> shard{0, 1};  // I, N
  std::string grid_id;                                // grid_identity(); the rows' `grid` column
  int processes_per_point = 1;                        // simulations at once within a point
  std::string data_dir;                               // platforms/ (docs/cli.md#data-folder)
};

// Called with each point a rule refuses and the rule's message.
using OnRefused = std::function<void(const PointKey&, const std::string&)>;

// The grid's identity, the `grid` column of a sweep's rows (docs/cli.md#csv): a short hash of the
// bytes of every file the sweep reads (`files`: the scenario, its model files, the platform files
// and the fit data, as app::input_files lists them) and of the options that decide the rows
// (`options`: each given option's name and value text; --csv, --json, --jobs, --shard, --resume,
// --quiet, --check-only and the lists are left out). A sharded sweep's (`shards` > 1) has a dot
// and a second hash after it, of the lists (expanded) and the shard count, which decide which
// points each shard runs; merge drops that part, so a merged CSV is the unsharded sweep's, and an
// unsharded sweep may be resumed with longer lists. Throws nothing: an unreadable file enters as
// empty.
[[nodiscard]] std::string grid_identity(
    const std::vector<std::string>& files,
    const std::vector<std::pair<std::string, std::string>>& options,
    const std::vector<std::int64_t>& num_csx, const std::vector<std::int64_t>& batches,
    std::int64_t shards);

// Most points a sweep's grid may have (platforms x num_csx x batch sizes): each is a run, and
// checking one costs about 0.5 ms, so 100,000 take about a minute to check.
inline constexpr std::int64_t kMaxGridPoints = 100000;

// The jobs of this shard's points in canonical order (platform, num_csx, batch_size); points go
// to shards round-robin (point k to shard k mod N). Points a rule refuses are skipped, each
// passed to `refused`. Throws RuleError when every point is refused, InputError for bad input
// or a grid of more than kMaxGridPoints points.
[[nodiscard]] std::map<PointKey, Job> grid_jobs(const GridRequest& request,
                                                const OnRefused& refused);

// --check-only: every shard's jobs made (a shard of the N where a rule refuses every point:
// RuleError naming it); how many points run in all and this shard's jobs.
struct ShardCheck {
  std::size_t to_run = 0;
  std::map<PointKey, Job> mine;
};
[[nodiscard]] ShardCheck check_shards(const GridRequest& request, const OnRefused& refused);

// --resume: the finished points of `csv`, which must be of this sweep (its grid `grid_id`,
// shard, model, settings, overrides, training steps, and one row per candidate of every pass of
// each point); they leave `pending`. Throws InputError naming `csv` and what differs, and for
// rows without a grid (a run's or plan's CSV, or a sweep's written before the grid identity
// covered unsharded sweeps), whose inputs cannot be checked.
[[nodiscard]] SweepTable resume(const std::string& csv, std::map<PointKey, Job>& pending,
                                const std::string& grid_id);

// What the points report while they run.
struct PointEvents {
  std::function<void(std::size_t finished, const PointKey& last)> progress;
  OnRefused refused;                  // a worker's point refused by a rule
  std::function<bool()> interrupted;  // a signal asked the sweep to stop
};

// Runs the pending points in worker processes, `jobs` at once, into `table` (written to `csv`
// at most once a second, the checkpoint of --resume); stops early when interrupted or a point
// fails. Returns the first failure ("POINT: why"), empty if none. Throws std::runtime_error when
// a worker cannot be started, InputError when the checkpoint cannot be written.
[[nodiscard]] std::string run_points(const std::map<PointKey, Job>& pending, std::int64_t jobs,
                                     const std::string& csv, SweepTable& table,
                                     const PointEvents& events);

// The simulation processes each grid point gets when `jobs` points run at once: the available
// CPUs divided among them, at least one.
[[nodiscard]] int processes_per_point(std::int64_t jobs);

// The training steps every point runs when they are fixed (--steps or the file's max_steps,
// no --tokens) over more than one batch size: the points then train different numbers of
// samples. Empty otherwise.
[[nodiscard]] std::optional<std::int64_t> fixed_steps_across_batches(const Overrides& base,
                                                                     const io::Scenario& scenario,
                                                                     std::size_t batch_sizes);

// Whether some point of `table` has a chosen candidate.
[[nodiscard]] bool any_chosen(const SweepTable& table);

}  // namespace csx::app
