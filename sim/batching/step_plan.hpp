// The per-system, per-microbatch plan of one training step.
// Every system runs the same k = ceil(P / MBS) microbatches (gradients are reduced in lock
// step); within a system the sizes differ by at most one, largest first.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "batching/batch_split.hpp"

namespace csx::batching {

struct StepPlan {
  BatchSplit split;
  std::int64_t micro_batch_size = 0;  // MBS, a value of S(P) (samples)
  std::int64_t num_microbatches = 0;  // k = ceil(P / MBS)

  // Samples in microbatch j (0 <= j < k) of a system holding `system_batch` samples: the
  // balanced split, largest first. The one formula of the sizes; the forms below use it.
  [[nodiscard]] std::int64_t microbatch_size(std::int64_t system_batch, std::int64_t j) const;
  // Microbatch sizes (samples) of a system holding `system_batch` samples; length k, sum
  // system_batch. A system with fewer samples than k gets empty (size 0) microbatches, which
  // still take part in the lock-step gradient reduction.
  [[nodiscard]] std::vector<std::int64_t> microbatch_sizes(std::int64_t system_batch) const;
  // The same sizes as runs: (size, count) pairs, largest size first; at most two entries.
  // Use this form when k may be large.
  [[nodiscard]] std::vector<std::pair<std::int64_t, std::int64_t>> microbatch_groups(
      std::int64_t system_batch) const;
  // One list per system (length N each k). Avoid for very large N.
  [[nodiscard]] std::vector<std::vector<std::int64_t>> per_system() const;
};

// Throws InputError when mbs is not a value of S(P).
[[nodiscard]] StepPlan make_plan(const BatchSplit& split, std::int64_t mbs);

// Gradient-accumulation weight of each microbatch: its size / B, so that the weighted sum of
// per-microbatch mean gradients equals the full-batch mean gradient. Shape: [system][microbatch].
[[nodiscard]] std::vector<std::vector<double>> gradient_weights(const StepPlan& plan);

}  // namespace csx::batching
