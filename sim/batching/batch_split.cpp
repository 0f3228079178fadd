// Even split of the global batch over the systems.
#include "batching/batch_split.hpp"

#include <fmt/format.h>

#include "common/errors.hpp"

namespace csx::batching {

BatchSplit split_batch(std::int64_t batch_size, std::int64_t num_csx) {
  if (num_csx < 1)
    throw InputError(fmt::format("num_csx = {} is invalid: it must be at least 1", num_csx));
  if (batch_size < 1)
    throw InputError(fmt::format("batch_size = {} is invalid: it must be at least 1", batch_size));
  if (batch_size > kMaxBatchSize)
    throw InputError(fmt::format(
        "batch_size = {} is larger than {} (2^40), the largest global batch csxsim handles",
        batch_size, kMaxBatchSize));
  if (num_csx > kMaxNumCsx)
    throw InputError(
        fmt::format("num_csx = {} is larger than {} (2^20), the most systems csxsim "
                    "handles",
                    num_csx, kMaxNumCsx));
  if (batch_size < num_csx)
    throw RuleError(fmt::format(
        "batch_size = {} is smaller than num_csx = {}: every system needs at least one sample",
        batch_size, num_csx));
  BatchSplit s;
  s.batch_size = batch_size;
  s.num_csx = num_csx;
  s.per_system_batch_size = ceil_div(batch_size, num_csx);
  const std::int64_t rem = batch_size % num_csx;
  s.num_full_systems = rem == 0 ? num_csx : rem;
  return s;
}

std::int64_t BatchSplit::batch_of(std::int64_t system) const {
  return system < num_full_systems ? per_system_batch_size : per_system_batch_size - 1;
}

std::vector<std::int64_t> BatchSplit::distinct_batches() const {
  if (num_full_systems == num_csx) return {per_system_batch_size};
  return {per_system_batch_size, per_system_batch_size - 1};
}

std::vector<std::int64_t> BatchSplit::per_system_batch_sizes() const {
  std::vector<std::int64_t> out(static_cast<std::size_t>(num_csx));
  for (std::int64_t i = 0; i < num_csx; ++i) out[static_cast<std::size_t>(i)] = batch_of(i);
  return out;
}

}  // namespace csx::batching
