// Transfer order, sizes and kernel durations shared by the actors.
#include "plan/step_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "model/compute_model.hpp"

namespace csx::plan {

StepSchedule::StepSchedule(const SimulationInput& input, MicrobatchGroups system0_microbatches)
    : input_(input),
      system0_(std::move(system0_microbatches)),
      num_layers_(static_cast<std::int64_t>(input.costs.layers.size())),
      k_(input.plan.num_microbatches),
      train_(input.pass == model::Pass::kTrain),
      steps_(input.simulated_steps) {
  if (!system0_.empty()) {
    k_ = 0;
    for (const auto& g : system0_) k_ += g.second;
  }
  for (const auto& L : input.costs.layers) {
    chunks_.push_back(std::max<std::int64_t>(
        1,
        static_cast<std::int64_t>(std::ceil(L.weight_bytes / input.platform.swarmx_chunk_bytes))));
  }
}

std::int64_t StepSchedule::microbatch_samples(std::int64_t system, std::int64_t j) const {
  if (system == 0 && !system0_.empty()) {
    for (const auto& [size, count] : system0_) {
      if (j < count) return size;
      j -= count;
    }
    return 0;
  }
  return input_.plan.microbatch_size(input_.plan.split.batch_of(system), j);
}

std::int64_t StepSchedule::chunks(std::int64_t layer) const {
  return chunks_[static_cast<std::size_t>(layer)];
}

std::uint64_t StepSchedule::chunk_bytes(std::int64_t layer) const {
  return static_cast<std::uint64_t>(weight_bytes(layer) / static_cast<double>(chunks(layer)) + 0.5);
}

std::uint64_t StepSchedule::weight_chunk_bytes(std::int64_t layer, bool backward) const {
  const auto& L = input_.costs.layers[static_cast<std::size_t>(layer)];
  return backward && L.backward_factor <= 0 ? 0 : chunk_bytes(layer);
}

std::uint64_t StepSchedule::grad_chunk_bytes(std::int64_t layer) const {
  return input_.costs.layers[static_cast<std::size_t>(layer)].trainable ? chunk_bytes(layer) : 0;
}

std::int64_t StepSchedule::weight_transfers_per_step() const {
  return k_ * num_layers_ * (train_ ? 2 : 1);
}

WeightTransfer StepSchedule::weight_transfer(std::int64_t t) const {
  const std::int64_t per_mb = num_layers_ * (train_ ? 2 : 1);
  WeightTransfer w;
  w.microbatch = t / per_mb;
  const std::int64_t r = t % per_mb;
  w.backward = r >= num_layers_;
  w.layer = w.backward ? 2 * num_layers_ - 1 - r : r;
  return w;
}

double StepSchedule::weight_bytes(std::int64_t layer) const {
  return input_.costs.layers[static_cast<std::size_t>(layer)].weight_bytes;
}

bool StepSchedule::sends_gradients(std::int64_t microbatch) const {
  if (!train_) return false;
  return input_.platform.gradient_accumulation == platform::GradientAccumulation::kMemoryX ||
         microbatch == k_ - 1;
}

std::int64_t StepSchedule::grad_transfers_per_step() const {
  if (!train_) return 0;
  const bool every =
      input_.platform.gradient_accumulation == platform::GradientAccumulation::kMemoryX;
  return (every ? k_ : 1) * num_layers_;
}

std::int64_t StepSchedule::grad_layer(std::int64_t i) const {
  return num_layers_ - 1 - i % num_layers_;
}

double StepSchedule::kernel_time_s(std::int64_t layer, std::int64_t samples, bool backward) const {
  const auto& L = input_.costs.layers[static_cast<std::size_t>(layer)];
  const double n = static_cast<double>(samples);
  return model::kernel_time_s(input_.platform, L,
                              model::pass_tokens(L, n, static_cast<double>(input_.seq_len)),
                              model::pass_flops(L, n, backward, input_.recompute_passes));
}

double StepSchedule::optimizer_parameters(std::int64_t layer) const {
  const auto& L = input_.costs.layers[static_cast<std::size_t>(layer)];
  return L.trainable ? static_cast<double>(L.parameters) : 0.0;
}

double StepSchedule::optimizer_time_s(std::int64_t layer) const {
  return optimizer_parameters(layer) / input_.platform.optimizer_rate_params_per_s;
}

}  // namespace csx::plan
