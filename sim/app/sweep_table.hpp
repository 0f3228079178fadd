// The rows of a sweep, grouped by grid point and kept in canonical order, so that a sharded,
// parallel or resumed sweep writes the same bytes as a plain one. Each point's rows are kept as
// their CSV lines (the candidates table, report/results_csv.hpp; about 450 bytes a row) and
// parsed back into typed records, one point at a time, only where values are needed. Also reads
// run, sweep and plan CSVs back (they share one header) for --resume and merge, each field by
// its column's type.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "report/results_schema.hpp"

namespace csx::app {

// A grid point: the platform (with its variant), num_csx and the batch size.
struct PointKey {
  std::string platform;
  std::int64_t num_csx = 0;
  std::int64_t batch_size = 0;
  auto operator<=>(const PointKey&) const = default;
};
// "cs3, num_csx 4, batch_size 528"
[[nodiscard]] std::string describe(const PointKey& key);

struct SweepTable {
  // Each point's rows: CSV lines (io::csv_line), newline-terminated, no header.
  std::map<PointKey, std::string> points;
  std::set<std::string> shards;    // the shard column's values ("I/N"; "" unsharded)
  std::set<std::string> grids;     // the grid column's values, empty ones left out
  bool rows_without_grid = false;  // a row with an empty grid (a run's or plan's)

  // The CSV: header plus every point's rows, sorted by (platform, num_csx, batch_size).
  [[nodiscard]] std::string render() const;
  // Every point's rows, in that order, as typed records.
  [[nodiscard]] std::vector<io::Record> records() const;
  // Calls f(key, record) for each row of each point (parsed one point at a time); stops when f
  // returns false.
  void for_each_row(const std::function<bool(const PointKey&, const io::Record&)>& f) const;
};

// What every row of one sweep shares: the model, its sequence length, the requested
// micro_batch_size per pass, and each platform label's overrides.
struct SweepIdentity {
  std::string model;
  std::string seq_len;
  std::vector<std::string> requested;            // one per pass (train, eval)
  std::vector<std::string> modes;                // the passes: train, eval or both
  std::map<std::string, std::string> overrides;  // platform label -> overrides column
  // input_key(platform label, mode) -> input samples/s per CS-X (0: not simulated)
  std::map<std::string, double> input;
};

// The key of SweepIdentity::input: a platform label's pass ("cs3+slow|train").
[[nodiscard]] inline std::string input_key(const std::string& platform, const std::string& mode) {
  return platform + "|" + mode;
}

// Throws InputError naming `path` when a row of `t` belongs to another sweep (another model,
// seq_len, MBS setting or mode, other overrides under one platform label, or another input rate
// of a platform label's pass). Labels and passes not yet in `id` are added to it.
void check_identity(const SweepTable& t, SweepIdentity& id, const std::string& path);
// The identity of `t`'s first point, with every platform label's overrides (for merge: every
// input must share it).
[[nodiscard]] SweepIdentity identity_of(const SweepTable& t);

// The typed records of CSV lines (a point's rows, no header), each field by its column's type.
// Throws InputError naming `where` for a malformed line or field, or a wrong number of fields.
[[nodiscard]] std::vector<io::Record> parse_rows(const std::string& lines,
                                                 const std::string& where);

// Reads a csxsim CSV (run, sweep or plan), each field by its column's type. With
// `clear_shard`, the shard column is emptied and the grid cut to its first hash (a merged table
// is the unsharded one); `grids` keeps the values as read.
// Throws InputError naming the file for a wrong header, a malformed row or field, or a chosen
// row with an empty step_time_s, samples_per_s or mfu (naming the record and column).
[[nodiscard]] SweepTable read_results_csv(const std::string& path, bool clear_shard = false);
// Adds `part`'s points to `into`; a point already there is an error naming `path` (the same
// point in two inputs).
void merge_points(SweepTable part, SweepTable& into, const std::string& path);
// Throws InputError when `shards` (the values seen in the inputs) is not one whole set I/N,
// I = 0..N-1; names the missing ones. `empty_inputs` header-only CSVs (shards with no point:
// the shards from the grid's size on, points being dealt round-robin) stand for as many missing
// shards above every present one.
void check_shards_complete(const std::set<std::string>& shards, std::size_t empty_inputs = 0);

}  // namespace csx::app
