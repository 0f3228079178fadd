// What every actor of a simulation agrees on: the order of weight and gradient transfers in a
// step, their sizes, and each kernel's duration. Pure code (no SimGrid).
//
// Per step, MemoryX streams, for each microbatch j = 0..k-1, the layers forward 0..L-1 and,
// when training, backward L-1..0 (weights are streamed again for every pass). Gradients leave
// the wafer layer by layer in backward order, every microbatch (accumulated in MemoryX) or only
// in the last one (accumulated on the wafer).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "plan/simulation_plan.hpp"

namespace csx::plan {

struct WeightTransfer {
  std::int64_t microbatch = 0;
  std::int64_t layer = 0;
  bool backward = false;
};

// Microbatch sizes as (size, count) runs, largest first (batching::StepPlan::microbatch_groups).
using MicrobatchGroups = std::vector<std::pair<std::int64_t, std::int64_t>>;

class StepSchedule {
 public:
  // `system0_microbatches`, when not empty, replaces system 0's microbatches (and so k): the
  // engine's collapse of identical microbatches (engine/exact_reductions.hpp).
  explicit StepSchedule(const SimulationInput& input, MicrobatchGroups system0_microbatches = {});

  [[nodiscard]] std::int64_t num_layers() const { return num_layers_; }
  [[nodiscard]] std::int64_t num_microbatches() const { return k_; }
  [[nodiscard]] bool train() const { return train_; }
  [[nodiscard]] std::int64_t steps() const { return steps_; }

  [[nodiscard]] std::int64_t weight_transfers_per_step() const;
  [[nodiscard]] WeightTransfer weight_transfer(std::int64_t index_in_step) const;
  [[nodiscard]] double weight_bytes(std::int64_t layer) const;
  // A layer's weights (or gradients) move in equal chunks of at most swarmx_chunk_bytes.
  [[nodiscard]] std::int64_t chunks(std::int64_t layer) const;
  [[nodiscard]] std::uint64_t chunk_bytes(std::int64_t layer) const;
  // Bytes of a weight chunk of a pass: none for the backward pass of a frozen layer that no
  // gradient passes through (backward_factor 0).
  [[nodiscard]] std::uint64_t weight_chunk_bytes(std::int64_t layer, bool backward) const;
  // Bytes of a gradient chunk: none for a frozen layer (it has no gradient to send).
  [[nodiscard]] std::uint64_t grad_chunk_bytes(std::int64_t layer) const;

  // Samples in microbatch j of a system (batching::StepPlan::microbatch_size, or the override).
  [[nodiscard]] std::int64_t microbatch_samples(std::int64_t system, std::int64_t j) const;

  // True when gradients leave the wafer after microbatch j.
  [[nodiscard]] bool sends_gradients(std::int64_t microbatch) const;
  [[nodiscard]] std::int64_t grad_transfers_per_step() const;
  // Layer of the i-th gradient transfer of a step (backward order).
  [[nodiscard]] std::int64_t grad_layer(std::int64_t index_in_step) const;

  // Kernel seconds of a layer pass for a microbatch of `samples` samples (model/compute_model;
  // backward includes the recomputed forward passes the memory model chose).
  [[nodiscard]] double kernel_time_s(std::int64_t layer, std::int64_t samples, bool backward) const;
  // Parameters the optimizer updates in a layer (0 when frozen).
  [[nodiscard]] double optimizer_parameters(std::int64_t layer) const;
  // Optimizer seconds of a layer at the MemoryX rate.
  [[nodiscard]] double optimizer_time_s(std::int64_t layer) const;

  [[nodiscard]] const SimulationInput& input() const { return input_; }

 private:
  const SimulationInput& input_;
  MicrobatchGroups system0_;
  std::int64_t num_layers_;
  std::int64_t k_;
  bool train_;
  std::int64_t steps_;
  std::vector<std::int64_t> chunks_;
};

}  // namespace csx::plan
