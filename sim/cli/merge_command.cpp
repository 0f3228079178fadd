// `csxsim merge A.csv B.csv ... -o ALL.csv`: joins sweep shards (and run or plan CSVs of one
// model) into the CSV an unsharded sweep writes; refuses a set of shards with one missing.
#include <fmt/format.h>
#include <optional>
#include <set>
#include <vector>

#include "app/sweep_table.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "common/errors.hpp"
#include "report/atomic_file.hpp"

namespace csx::cli {

int merge_command(const Args& args) {
  po::options_description desc("merge options");
  std::vector<std::string> inputs;
  std::string output;
  desc.add_options()("inputs", po::value(&inputs)->required()->multitoken(),
                     "sweep shards, run or plan CSVs")("output,o", po::value(&output)->required(),
                                                       "merged CSV");
  po::positional_options_description pos;
  pos.add("inputs", -1);
  const auto vm = parse_options(args, "csxsim merge A.csv B.csv ... -o ALL.csv", desc, &pos);
  if (!vm) return 0;
  io::check_output_path(output, "-o", inputs);
  app::SweepTable table;
  std::optional<app::SweepIdentity> id;
  std::string grid, grid_file;  // the first shard's grid and file
  std::vector<app::SweepTable> parts;
  std::set<std::string> shards;
  std::size_t empty_inputs = 0;  // header-only CSVs: shards with no point
  for (const auto& f : inputs) {
    app::SweepTable part = app::read_results_csv(f, true);
    for (const auto& g : part.grids) {
      if (grid_file.empty()) {
        grid = g;
        grid_file = f;
      } else if (g != grid) {
        throw InputError(fmt::format(
            "{}: a shard of another sweep (grid {}; {} is of grid {}): other options, or the "
            "grid cut into other shards; merge the shards of one sweep",
            f, g, grid_file, grid));
      }
    }
    if (part.points.empty()) ++empty_inputs;
    if (!id && !part.points.empty()) id = app::identity_of(part);
    if (id) app::check_identity(part, *id, f);
    shards.insert(part.shards.begin(), part.shards.end());
    parts.push_back(std::move(part));
  }
  // Shards of different sweeps (N=3 and N=4) share points: say that (check_shards_complete
  // names the mix) before a point is found in two inputs.
  std::set<std::string> counts;
  for (const auto& s : shards) counts.insert(s.substr(s.find('/') + 1));
  if (counts.size() > 1) app::check_shards_complete(shards);
  for (std::size_t i = 0; i < parts.size(); ++i)
    app::merge_points(std::move(parts[i]), table, inputs[i]);
  app::check_shards_complete(table.shards, empty_inputs);
  io::OutputFiles files;
  files.stage(output, table.render());
  files.commit();
  return 0;
}

}  // namespace csx::cli
