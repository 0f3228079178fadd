// Splitting the global batch over num_csx systems (data parallelism).
// Source: Cerebras "Automatic microbatching" guide: per-system batch = ceil(batch_size / num_csx),
// samples spread as evenly as possible when num_csx does not divide batch_size.
#pragma once

#include <cstdint>
#include <vector>

namespace csx::batching {

struct BatchSplit {
  std::int64_t batch_size = 0;             // B, global batch (samples)
  std::int64_t num_csx = 0;                // N, systems
  std::int64_t per_system_batch_size = 0;  // P = ceil(B / N), the fullest system's batch
  std::int64_t num_full_systems = 0;       // systems that get P samples; the rest get P - 1

  // Samples on system i (0-based); the first num_full_systems systems are the full ones.
  [[nodiscard]] std::int64_t batch_of(std::int64_t system) const;
  // Distinct per-system batch sizes, largest first (one or two values).
  [[nodiscard]] std::vector<std::int64_t> distinct_batches() const;
  // One entry per system, length N. Avoid for very large N.
  [[nodiscard]] std::vector<std::int64_t> per_system_batch_sizes() const;
};

// Limits: S(P) has about 2 sqrt(P) values, listed in full by candidates and explore.
inline constexpr std::int64_t kMaxBatchSize = std::int64_t{1} << 40;
inline constexpr std::int64_t kMaxNumCsx = std::int64_t{1} << 20;

// Throws InputError when B < 1, N < 1, B > 2^40, N > 2^20 or B < N (naming both values).
[[nodiscard]] BatchSplit split_batch(std::int64_t batch_size, std::int64_t num_csx);

// ceil(a / b) for a >= 0, b > 0, without overflow.
[[nodiscard]] constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

}  // namespace csx::batching
