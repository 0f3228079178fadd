// Applies a micro_batch_size setting to a batch split, with the platform's rules.
// Sources: Cerebras "Automatic microbatching" guide (nearest supported value with a warning;
// MBS > per-system batch refused; explore only in compile_only mode and only for transformers;
// no microbatching with batch normalization) and docs/rules.md#microbatching-rules.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "batching/batch_split.hpp"
#include "batching/mbs_setting.hpp"

namespace csx::batching {

// What the rules need to know of a model.
struct ModelTraits {
  std::string name;         // for messages
  bool transformer = true;  // explore is limited to transformers
  bool batch_norm = false;  // batch norm forbids k > 1
};

struct Resolution {
  MbsSetting requested;
  // Fixed and none: the MBS that will run. Auto and explore: 0 (the search picks).
  std::int64_t micro_batch_size = 0;
  std::int64_t num_microbatches = 0;  // k for micro_batch_size, 0 when not yet chosen
  bool adjusted = false;              // a fixed request was moved to a supported value
  std::string notice;                 // what changed and why; empty if nothing changed
  // MBS values a search evaluates, descending. Fixed and none: just the resolved value.
  std::vector<std::int64_t> candidates;
};

// The default bound on explore's candidates (--max-explore): each is simulated and is a CSV
// row; a per-system batch of 2^40 has about 2 million supported sizes.
inline constexpr std::int64_t kMaxExploreCandidates = 10000;

// Throws RuleError when a rule refuses the setting (MBS > P, explore outside compile-only,
// explore on a non-transformer, k > 1 with batch norm, an explore range with no supported
// value), InputError when explore would try more than `max_explore` sizes.
[[nodiscard]] Resolution resolve(const MbsSetting& setting, const BatchSplit& split,
                                 const ModelTraits& model, bool compile_only,
                                 std::int64_t max_explore = kMaxExploreCandidates);

// The candidates `auto` tries, descending: P first, then up to 7 proper divisors of P greater
// than 1, spread evenly over the sorted divisors (the real stack tries divisors of the batch:
// "trying sub-batch size 3, 33, 9, 11" for 99). A P with no such divisor gets ceil(P/2),
// ceil(P/4), ... instead. At most 8 values, all in S(P).
[[nodiscard]] std::vector<std::int64_t> auto_candidates(std::int64_t P);

// The values of S(P) within [min, max], descending.
[[nodiscard]] std::vector<std::int64_t> explore_candidates(std::int64_t P, std::int64_t min,
                                                           std::int64_t max);

}  // namespace csx::batching
