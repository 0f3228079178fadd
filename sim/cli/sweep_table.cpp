// Sweep CSVs: grouping by grid point, reading back for resume and merge.
#include "cli/sweep_table.hpp"
#include "common/whole_number.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <fstream>

#include "batching/mbs_setting.hpp"
#include "common/errors.hpp"
#include "input/value_list.hpp"
#include "report/results_csv.hpp"

namespace csx::cli {

std::string SweepTable::render() const {
  std::string out = io::csv_header(true);
  for (const auto& [key, rows] : points) out += rows;
  return out;
}

SweepTable read_sweep_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot be read", path));
  std::string line;
  const std::string header = io::csv_header(true);
  if (!std::getline(in, line) || line + "\n" != header)
    throw InputError(
        fmt::format("{}: not a csxsim sweep CSV (the first line must be the sweep "
                    "header, {} columns ending in time_to_train_s)",
                    path, io::csv_columns(true).size()));
  std::map<PointKey, std::string> rows;
  const auto columns = io::csv_columns(true).size();
  for (std::size_t n = 2; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const auto fields = io::split_csv_record(line);
    if (fields.size() != columns)
      throw InputError(
          fmt::format("{}:{}: {} fields, expected {}", path, n, fields.size(), columns));
    const PointKey key{csx::parse_whole(fields[3], fmt::format("{}:{}: num_csx", path, n), 1),
                       csx::parse_whole(fields[4], fmt::format("{}:{}: batch_size", path, n), 1)};
    rows[key] += line + "\n";
  }
  return SweepTable{std::move(rows)};
}

void merge_points(SweepTable part, SweepTable& into, const std::string& path) {
  for (auto& [key, text] : part.points) {
    if (into.points.count(key))
      throw InputError(
          fmt::format("{}: point num_csx {}, batch_size {} is already in another "
                      "input",
                      path, key.first, key.second));
    into.points.emplace(key, std::move(text));
  }
}

void SweepTable::for_each_row(
    const std::function<bool(const PointKey&, const std::vector<std::string>&)>& f) const {
  for (const auto& [key, rows] : points) {
    std::size_t start = 0;
    while (start < rows.size()) {
      const auto end = rows.find('\n', start);
      if (!f(key, io::split_csv_record(rows.substr(start, end - start)))) return;
      start = end + 1;
    }
  }
}

void check_identity(const SweepTable& t, const SweepIdentity& id, const std::string& path) {
  const auto in = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  t.for_each_row([&](const PointKey& key, const std::vector<std::string>& f) {
    if (f[0] != id.model || f[1] != id.platform || !in(id.requested, f[6]) ||
        (!id.modes.empty() && !in(id.modes, f[2])))
      throw InputError(fmt::format(
          "{}: point num_csx {}, batch_size {} is from another sweep (model {}, platform {}, "
          "mode {}, micro_batch_size {}; expected {}, {}, {}, {})",
          path, key.first, key.second, f[0], f[1], f[2], f[6], id.model, id.platform,
          fmt::join(id.modes, " and "), id.requested.empty() ? "" : id.requested.front()));
    return true;
  });
}

SweepIdentity identity_of(const SweepTable& t) {
  SweepIdentity id;
  if (t.points.empty()) return id;
  const PointKey first = t.points.begin()->first;  // the first point tells the sweep
  t.for_each_row([&](const PointKey& key, const std::vector<std::string>& f) {
    if (key != first) return false;
    id.model = f[0];
    id.platform = f[1];
    if (std::find(id.requested.begin(), id.requested.end(), f[6]) == id.requested.end())
      id.requested.push_back(f[6]);
    if (std::find(id.modes.begin(), id.modes.end(), f[2]) == id.modes.end())
      id.modes.push_back(f[2]);
    return true;
  });
  return id;
}

}  // namespace csx::cli
