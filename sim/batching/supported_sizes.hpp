// The supported micro-batch sizes S(P) = { ceil(P / k) : k = 1 .. P }.
// Source: Cerebras "Automatic microbatching" guide (NumMicroBatches = ceil(P / MBS),
// k in {1 .. P}; the supported set is P / k rounded up).
#pragma once

#include <cstdint>
#include <vector>

namespace csx::batching {

struct SupportedSize {
  std::int64_t micro_batch_size = 0;  // a value of S(P)
  std::int64_t num_microbatches = 0;  // k = ceil(P / micro_batch_size), the k the platform uses
};

// Every distinct value of S(P), ascending, with its k. O(sqrt P) time and size; exact for any
// P >= 1 that fits int64. Throws InputError for P < 1.
[[nodiscard]] std::vector<SupportedSize> supported_micro_batch_sizes(std::int64_t P);

// k = ceil(P / mbs). Requires 1 <= mbs.
[[nodiscard]] std::int64_t num_microbatches(std::int64_t P, std::int64_t mbs);

// True when 1 <= m <= P and m is a value of S(P): ceil(P / ceil(P / m)) == m.
[[nodiscard]] bool is_supported(std::int64_t P, std::int64_t m);

// The largest value of S(P) that is <= m (1 <= m <= P).
[[nodiscard]] std::int64_t supported_floor(std::int64_t P, std::int64_t m);
// The smallest value of S(P) that is >= m (1 <= m <= P).
[[nodiscard]] std::int64_t supported_ceil(std::int64_t P, std::int64_t m);
// The value of S(P) nearest to m (1 <= m <= P); on a tie, the smaller one (it needs less memory).
[[nodiscard]] std::int64_t nearest_supported(std::int64_t P, std::int64_t m);

}  // namespace csx::batching
