// S(P) in O(sqrt P): ceil(P / k) takes each value v on a contiguous range of k,
// whose last k is floor((P - 1) / (v - 1)) for v > 1.
#include "batching/supported_sizes.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "batching/batch_split.hpp"
#include "common/errors.hpp"

namespace csx::batching {

std::vector<SupportedSize> supported_micro_batch_sizes(std::int64_t P) {
  if (P < 1) throw InputError(fmt::format("per-system batch size {} must be at least 1", P));
  std::vector<SupportedSize> out;
  std::int64_t k = 1;
  while (k <= P) {
    const std::int64_t v = ceil_div(P, k);
    out.push_back({v, k});
    k = (v == 1) ? P + 1 : (P - 1) / (v - 1) + 1;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::int64_t num_microbatches(std::int64_t P, std::int64_t mbs) {
  return ceil_div(P, mbs);
}

bool is_supported(std::int64_t P, std::int64_t m) {
  return m >= 1 && m <= P && ceil_div(P, ceil_div(P, m)) == m;
}

std::int64_t supported_floor(std::int64_t P, std::int64_t m) {
  return ceil_div(P, ceil_div(P, m));
}

std::int64_t supported_ceil(std::int64_t P, std::int64_t m) {
  const std::int64_t lo = supported_floor(P, m);
  if (lo == m) return m;
  // Values above m come from k < ceil(P / m); the smallest of them from k = ceil(P / m) - 1.
  return ceil_div(P, ceil_div(P, m) - 1);
}

std::int64_t nearest_supported(std::int64_t P, std::int64_t m) {
  const std::int64_t lo = supported_floor(P, m);
  if (lo == m) return m;
  const std::int64_t hi = supported_ceil(P, m);
  return (hi - m < m - lo) ? hi : lo;
}

}  // namespace csx::batching
