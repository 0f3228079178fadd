// The sweep grid: points, shards, resuming, running.
#include "app/sweep_grid.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <set>

#include "common/errors.hpp"
#include "common/process_pool.hpp"
#include "common/short_hash.hpp"
#include "engine/simulation.hpp"
#include "report/atomic_file.hpp"
#include "report/results_csv.hpp"

namespace csx::app {
namespace {

// One grid point's rows (run in a child of the pool) as CSV lines: any bytes a text field holds
// (a non-UTF-8 file name) and inf/nan reals go through as the CSV writes them.
std::string point_rows(const Job& job) {
  std::string lines;
  for (const auto& r : run_job(job))
    for (const auto& row : r.outcome.rows) lines += io::csv_line(io::csv_record(r.context, row));
  return lines;
}

// Each kept point must hold one row per candidate its search writes (search::candidate_sizes),
// for each pass; a point with rows missing (a file cut short or edited) is refused, naming it.
void check_complete(const std::string& csv, const SweepTable& table,
                    const std::map<PointKey, Job>& pending) {
  const auto mode = io::csv_column("mode"), mbs = io::csv_column("micro_batch_size");
  std::map<std::pair<PointKey, std::string>, std::set<std::string>> rows;
  table.for_each_row([&](const PointKey& key, const io::Record& f) {
    rows[{key, io::field_text(f[mode])}].insert(io::field_text(f[mbs]));
    return true;
  });
  for (const auto& [key, text] : table.points) {
    const Job& job = pending.at(key);
    for (const auto& p : job.passes) {
      std::set<std::string> want;
      for (const auto m : search::candidate_sizes(search_request(job, p)))
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

}  // namespace

std::string grid_identity(const std::vector<std::string>& files,
                          const std::vector<std::pair<std::string, std::string>>& options,
                          const std::vector<std::int64_t>& num_csx,
                          const std::vector<std::int64_t>& batches, std::int64_t shards) {
  std::string text;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes(std::istreambuf_iterator<char>(in), {});
    text += fmt::format("{}\n{}\n", bytes.size(), bytes);
  }
  static const std::set<std::string> ignored{"scenario",   "csv",       "json",  "jobs",
                                             "shard",      "resume",    "quiet", "num-csx",
                                             "batch-size", "check-only"};
  for (const auto& [name, value] : options)
    if (!ignored.count(name)) text += "\n" + name + "=" + value;
  // The points, not how the lists were written: sorted, each once (4,2,1,1 is 1,2,4).
  const auto points = [](std::vector<std::int64_t> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  if (shards == 1) return short_hash(text);
  return short_hash(text) + "." +
         short_hash(fmt::format("num-csx={}\nbatch-size={}\nshards={}\n",
                                fmt::join(points(num_csx), ","), fmt::join(points(batches), ","),
                                shards));
}

std::map<PointKey, Job> grid_jobs(const GridRequest& request, const OnRefused& refused) {
  const auto& shard = request.shard;
  const double points = static_cast<double>(request.setups.size()) *
                        static_cast<double>(request.num_csx.size()) *
                        static_cast<double>(request.batches.size());
  if (points > static_cast<double>(kMaxGridPoints))
    throw InputError(fmt::format(
        "the grid has {:.0f} points ({} platforms x {} num_csx x {} batch sizes), more than {}: "
        "narrow --num-csx or --batch-size (each point is a run; --check-only alone would take "
        "about {:.0f} s)",
        points, request.setups.size(), request.num_csx.size(), request.batches.size(),
        kMaxGridPoints, points * 5e-4));
  std::map<PointKey, const Overrides*> grid;
  for (const auto& setup : request.setups)
    for (const auto n : request.num_csx)
      for (const auto b : request.batches)
        grid.emplace(PointKey{setup.label, n, b}, &setup.overrides);
  // Points go to shards round-robin (point k to shard k mod N), so with more shards than points
  // the shards from the grid's size on are empty: they write a CSV of the header alone, which
  // merge counts for them (a fixed-size job array needs them).
  std::map<PointKey, Job> pending;
  std::string first_refusal;
  std::size_t refusals = 0;
  std::int64_t index = 0;
  const std::string shard_text =
      shard.second > 1 ? fmt::format("{}/{}", shard.first, shard.second) : "";
  for (const auto& [key, setup] : grid) {
    if (index++ % shard.second != shard.first) continue;
    Overrides o = *setup;
    o.num_csx = key.num_csx;
    o.batch_size = key.batch_size;
    try {
      Job job = make_job(request.scenario, o, request.data_dir);
      job.simulation_processes = request.processes_per_point;
      job.shard = shard_text;
      job.grid = request.grid_id;
      pending.emplace(key, std::move(job));
    } catch (const RuleError& e) {
      if (first_refusal.empty()) first_refusal = e.what();
      ++refusals;
      refused(key, e.what());
    }
  }
  if (pending.empty() && refusals > 0)
    throw RuleError(fmt::format("every grid point was refused; first: {}", first_refusal));
  return pending;
}

ShardCheck check_shards(const GridRequest& request, const OnRefused& refused) {
  ShardCheck check;
  const auto [mine, shards] = request.shard;
  // Shards from the grid's size on hold no point (round-robin): only the others are built.
  const double points = static_cast<double>(request.setups.size()) *
                        static_cast<double>(request.num_csx.size()) *
                        static_cast<double>(request.batches.size());
  const std::int64_t filled =
      static_cast<double>(shards) > points ? static_cast<std::int64_t>(points) : shards;
  for (std::int64_t i = 0; i < std::max<std::int64_t>(filled, 1); ++i) {
    GridRequest one = request;
    one.shard = {i, shards};
    one.processes_per_point = 1;
    std::map<PointKey, Job> pending;
    try {
      pending = grid_jobs(one, refused);
    } catch (const RuleError& e) {
      if (shards == 1) throw;
      throw RuleError(fmt::format("shard {}/{}: {}", i, shards, e.what()));
    }
    check.to_run += pending.size();
    if (i == mine) check.mine = std::move(pending);
  }
  return check;
}

SweepTable resume(const std::string& csv, std::map<PointKey, Job>& pending,
                  const std::string& grid_id) {
  SweepTable table = read_results_csv(csv);
  for (const auto& [key, rows] : table.points)
    if (!pending.count(key))
      throw InputError(
          fmt::format("{}: holds {}, which is not in this sweep's grid (or shard); refusing to "
                      "drop it",
                      csv, describe(key)));
  if (!pending.empty()) {
    const Job& job = pending.begin()->second;
    SweepIdentity id{
        job.scenario.model.label, std::to_string(job.scenario.model.seq_len), {}, {}, {}, {}};
    for (const auto& p : job.passes) {
      id.requested.push_back(batching::to_string(p.setting));
      id.modes.emplace_back(model::to_string(p.pass));
    }
    for (const auto& [key, j] : pending) {
      id.overrides.emplace(key.platform, j.overrides_text);
      for (const auto& p : j.passes)
        id.input.emplace(input_key(key.platform, model::to_string(p.pass)),
                         input_samples_per_csx(j.scenario, p));
    }
    check_identity(table, id, csv);
    for (const auto& s : table.shards)
      if (s != job.shard)
        throw InputError(
            fmt::format("{}: holds rows of shard '{}', this is shard '{}'", csv, s, job.shard));
    // Each kept point's training steps (from --steps, --tokens or the file) must be this run's.
    const auto steps = io::csv_column("steps"), mode = io::csv_column("mode");
    table.for_each_row([&](const PointKey& key, const io::Record& f) {
      const auto& want = pending.at(key).training_steps;
      const io::Value expected = want ? io::Value(*want) : io::Value();
      if (f[mode] == io::Value(std::string("train")) && f[steps] != expected)
        throw InputError(
            fmt::format("{}: point {} was run for {} training steps, this sweep asks for {}", csv,
                        describe(key), f[steps] == io::Value() ? "no" : io::field_text(f[steps]),
                        want ? std::to_string(*want) : "none"));
      return true;
    });
    check_complete(csv, table, pending);
  }
  if (table.rows_without_grid)
    throw InputError(fmt::format(
        "{}: holds rows with no grid identity (written by run or plan, or by a sweep of a "
        "csxsim before 2026-12), so whether they came from this scenario, model and platform files "
        "cannot be checked; refusing to mix them: run without --resume, or --csv another file",
        csv));
  // Last: what differs is named above when it shows in the rows; this catches the rest.
  const auto inputs_of = [](const std::string& g) { return g.substr(0, g.find('.')); };
  for (const auto& g : table.grids)
    if (g != grid_id && inputs_of(g) == inputs_of(grid_id))
      throw InputError(
          fmt::format("{}: holds rows of grid {}, this sweep's is {}: the same "
                      "inputs and options, with other --num-csx or --batch-size "
                      "lists or another shard count; refusing to mix them",
                      csv, g, grid_id));
  for (const auto& g : table.grids)
    if (g != grid_id)
      throw InputError(fmt::format(
          "{}: holds rows of grid {}, this sweep's is {}: rows of another sweep, or of this one "
          "before an edit of its scenario, model or platform files or of an option that decides "
          "the rows{}; refusing to mix them",
          csv, g, grid_id,
          grid_id.find('.') == std::string::npos ? "" : ", or cut into other shards"));
  for (const auto& [key, rows] : table.points) pending.erase(key);
  return table;
}

std::string run_points(const std::map<PointKey, Job>& pending, std::int64_t jobs,
                       const std::string& csv, SweepTable& table, const PointEvents& events) {
  std::vector<std::pair<PointKey, const Job*>> points;
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
          try {
            (void)parse_rows(c.output, describe(key));  // whole rows, or the pipe was cut
            table.points[key] = std::move(c.output);
          } catch (const InputError& e) {
            failure = fmt::format("a worker's rows: {}", e.what());
          }
        } else if (c.status == 2) {
          events.refused(key, c.output);
        } else if (!events.interrupted()) {
          failure = fmt::format("{}: {}", describe(key),
                                c.output.empty() ? "worker process failed" : c.output);
        }
        events.progress(++finished, key);
        const auto now = std::chrono::steady_clock::now();
        if (csv != io::kStandardOutput && now - last_write > std::chrono::seconds(1)) {
          io::write_file_atomically(csv, table.render());
          last_write = now;
        }
      },
      [&] { return events.interrupted() || !failure.empty(); });
  return failure;
}

int processes_per_point(std::int64_t jobs) {
  return static_cast<int>(std::max<std::int64_t>(1, engine::available_cpus() / jobs));
}

std::optional<std::int64_t> fixed_steps_across_batches(const Overrides& base,
                                                       const io::Scenario& scenario,
                                                       std::size_t batch_sizes) {
  const auto steps = base.training_steps ? base.training_steps : scenario.max_steps;
  if (steps && !base.tokens && batch_sizes > 1) return steps;
  return std::nullopt;
}

bool any_chosen(const SweepTable& table) {
  bool chosen = false;
  const auto column = io::csv_column("chosen");
  table.for_each_row([&](const PointKey&, const io::Record& f) {
    chosen = f[column] == io::Value(true);
    return !chosen;
  });
  return chosen;
}

}  // namespace csx::app
