// merge's checks: shards of one sweep (one grid, every shard present, each point once), or
// run and plan CSVs of one model, joined into the table an unsharded sweep writes.
#pragma once

#include <string>
#include <vector>

#include "app/sweep_table.hpp"

namespace csx::app {

// Reads every CSV of `inputs` (csxsim's header) and joins their points; the shard and grid
// columns are emptied. Throws InputError naming the file: a file given twice, a malformed CSV,
// a shard of another grid, rows of another sweep (model, seq_len, settings, overrides), a point
// in two inputs, a set of shards with one missing or of two shard counts.
[[nodiscard]] SweepTable merge_results(const std::vector<std::string>& inputs);

}  // namespace csx::app
