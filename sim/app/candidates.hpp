// `csxsim candidates` as data: the batching rules alone (no model, no simulation) and the
// object its --json prints (the Python module returns it, docs/python.md#python).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "batching/batch_split.hpp"
#include "batching/resolve.hpp"
#include "batching/supported_sizes.hpp"

namespace csx::app {

// The batching rules of a batch over num_csx systems with an MBS setting, resolved as `run`
// resolves them for a transformer with compile-only (every setting can be shown).
struct Candidates {
  batching::BatchSplit split;
  std::vector<batching::SupportedSize> supported;
  batching::Resolution resolution;
};

// `batch` samples over `num_csx` systems with setting `mbs` (the flags' text). Throws InputError
// naming the flag (--batch-size, --num-csx, --micro-batch-size), RuleError as the rules do.
[[nodiscard]] Candidates candidates(const std::string& batch, const std::string& num_csx,
                                    const std::string& mbs);

// The object `candidates --json` prints (docs/cli.md#json-output).
[[nodiscard]] nlohmann::ordered_json candidates_json(const Candidates& c);

}  // namespace csx::app
