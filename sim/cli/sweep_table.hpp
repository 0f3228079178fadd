// The rows of a sweep, grouped by grid point and kept in canonical order, so that a sharded,
// parallel or resumed sweep writes the same bytes as a plain one.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace csx::cli {

using PointKey = std::pair<std::int64_t, std::int64_t>;  // (num_csx, batch_size)

struct SweepTable {
  std::map<PointKey, std::string> points;  // each point's CSV rows, newline-terminated

  // Header plus every point's rows, sorted by (num_csx, batch_size).
  [[nodiscard]] std::string render() const;
  // Calls f(key, fields) for each row of each point (fields split as CSV); stops when f
  // returns false.
  void for_each_row(
      const std::function<bool(const PointKey&, const std::vector<std::string>&)>& f) const;
  // Drops points not in `keys`.
  template <typename Map>
  void keep_only(const Map& keys) {
    for (auto it = points.begin(); it != points.end();)
      it = keys.count(it->first) ? std::next(it) : points.erase(it);
  }
};

// What every row of one sweep shares: model, platform and the requested micro_batch_size.
struct SweepIdentity {
  std::string model, platform;
  std::vector<std::string> requested;  // one per pass (train, eval)
  std::vector<std::string> modes;      // the passes: train, eval or both
};

// Throws InputError naming `path` when a row of `t` belongs to another sweep.
void check_identity(const SweepTable& t, const SweepIdentity& id, const std::string& path);
// The identity of the first row of `t` (for merge: every input must share it).
[[nodiscard]] SweepIdentity identity_of(const SweepTable& t);

// Reads a sweep CSV. Throws InputError naming the file for a wrong header or a malformed row.
[[nodiscard]] SweepTable read_sweep_csv(const std::string& path);
// Adds `part`'s points to `into`; a point already there is an error naming `path` (the same
// point in two shards).
void merge_points(SweepTable part, SweepTable& into, const std::string& path);

}  // namespace csx::cli
