// Balanced microbatch sizes per system.
#include "batching/step_plan.hpp"

#include <fmt/format.h>

#include "batching/supported_sizes.hpp"
#include "common/errors.hpp"

namespace csx::batching {

StepPlan make_plan(const BatchSplit& split, std::int64_t mbs) {
  if (!is_supported(split.per_system_batch_size, mbs))
    throw InputError(
        fmt::format("micro_batch_size {} is not in S({})", mbs, split.per_system_batch_size));
  return StepPlan{split, mbs, num_microbatches(split.per_system_batch_size, mbs)};
}

std::int64_t StepPlan::microbatch_size(std::int64_t system_batch, std::int64_t j) const {
  const std::int64_t k = num_microbatches;
  return system_batch / k + (j < system_batch % k ? 1 : 0);
}

std::vector<std::int64_t> StepPlan::microbatch_sizes(std::int64_t system_batch) const {
  std::vector<std::int64_t> sizes;
  sizes.reserve(static_cast<std::size_t>(num_microbatches));
  for (std::int64_t j = 0; j < num_microbatches; ++j)
    sizes.push_back(microbatch_size(system_batch, j));
  return sizes;
}

std::vector<std::pair<std::int64_t, std::int64_t>> StepPlan::microbatch_groups(
    std::int64_t system_batch) const {
  // Microbatches 0..rem-1 hold one sample more than the others.
  const std::int64_t rem = system_batch % num_microbatches;
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  if (rem > 0) out.emplace_back(microbatch_size(system_batch, 0), rem);
  if (num_microbatches - rem > 0)
    out.emplace_back(microbatch_size(system_batch, num_microbatches - 1), num_microbatches - rem);
  return out;
}

std::vector<std::vector<std::int64_t>> StepPlan::per_system() const {
  std::vector<std::vector<std::int64_t>> out;
  out.reserve(static_cast<std::size_t>(split.num_csx));
  for (std::int64_t i = 0; i < split.num_csx; ++i)
    out.push_back(microbatch_sizes(split.batch_of(i)));
  return out;
}

std::vector<std::vector<double>> gradient_weights(const StepPlan& plan) {
  std::vector<std::vector<double>> w;
  const double B = static_cast<double>(plan.split.batch_size);
  for (const auto& sizes : plan.per_system()) {
    auto& row = w.emplace_back();
    for (const auto s : sizes) row.push_back(static_cast<double>(s) / B);
  }
  return w;
}

}  // namespace csx::batching
