// Joining sweep shards and run or plan CSVs.
#include "app/sweep_merge.hpp"

#include <fmt/format.h>
#include <filesystem>
#include <optional>
#include <set>

#include "common/errors.hpp"

namespace csx::app {

SweepTable merge_results(const std::vector<std::string>& inputs) {
  SweepTable table;
  std::optional<SweepIdentity> id;
  std::string grid, grid_file;  // the first shard's grid and file
  std::vector<SweepTable> parts;
  std::set<std::string> shards;
  std::size_t empty_inputs = 0;  // header-only CSVs: shards with no point
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string& f = inputs[i];
    for (std::size_t j = 0; j < i; ++j) {
      std::error_code ec;
      if (inputs[j] == f || std::filesystem::equivalent(inputs[j], f, ec))
        throw InputError(fmt::format("{}: given twice (as input {} and {}); name each shard once",
                                     f, j + 1, i + 1));
    }
    SweepTable part = read_results_csv(f, true);
    if (part.points.empty()) ++empty_inputs;
    if (!id && !part.points.empty()) id = identity_of(part);
    if (id) check_identity(part, *id, f);
    // Shards must be of one sweep; unsharded sweeps of one model (cs2 and cs3 apart) may join.
    for (const auto& g : part.grids) {
      if (g.find('.') == std::string::npos) continue;
      if (grid_file.empty()) {
        grid = g;
        grid_file = f;
      } else if (g != grid) {
        throw InputError(fmt::format(
            "{}: a shard of another sweep (grid {}; {} is of grid {}): other options, other "
            "scenario, model or platform files, or the grid cut into other shards; merge the "
            "shards of one sweep",
            f, g, grid_file, grid));
      }
    }
    shards.insert(part.shards.begin(), part.shards.end());
    parts.push_back(std::move(part));
  }
  // Shards of different sweeps (N=3 and N=4) share points: say that (check_shards_complete
  // names the mix) before a point is found in two inputs.
  std::set<std::string> counts;
  for (const auto& s : shards) counts.insert(s.substr(s.find('/') + 1));
  if (counts.size() > 1) check_shards_complete(shards);
  for (std::size_t i = 0; i < parts.size(); ++i)
    merge_points(std::move(parts[i]), table, inputs[i]);
  check_shards_complete(table.shards, empty_inputs);
  return table;
}

}  // namespace csx::app
