// What every actor of a simulation agrees on: the order of weight and gradient transfers in a
// step, their sizes, and each kernel's duration. Pure code (no SimGrid).
//
// Per step, MemoryX streams, for each microbatch j = 0..k-1, the layers forward 0..L-1 and,
// when training, backward L-1..0 (weights are streamed again for every pass). Gradients leave
// the wafer layer by layer in backward order, every microbatch (accumulated in MemoryX) or only
// in the last one (accumulated on the wafer).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/simulation.hpp"

namespace csx::engine {

struct WeightTransfer {
  std::int64_t microbatch = 0;
  std::int64_t layer = 0;
  bool backward = false;
};

class StepSchedule {
 public:
  explicit StepSchedule(const SimulationInput& input);

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

  // Samples in microbatch j of a system (balanced sizes, largest first, or the override).
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
  std::int64_t num_layers_;
  std::int64_t k_;
  bool train_;
  std::int64_t steps_;
  std::vector<std::int64_t> chunks_;
};

// The SwarmX broadcast-reduce tree over N systems: nodes of `fanout` children, built bottom-up
// until one root, which connects to MemoryX. At least one node, even for N = 1.
struct SwarmxTree {
  struct Node {
    std::int64_t parent = -1;          // node index, -1 for the root (parent is MemoryX)
    std::int64_t index_in_parent = 0;  // position among the parent's children
    std::vector<std::int64_t> child_nodes;
    std::vector<std::int64_t> child_systems;  // CS-X indices (leaf nodes only)
    int level = 1;                            // 1 = connects CS-X systems
  };
  std::vector<Node> nodes;
  std::vector<std::int64_t> system_parent;  // leaf node of each CS-X
  std::vector<std::int64_t> system_index_in_parent;
  int depth = 0;  // levels of SwarmX nodes

  [[nodiscard]] std::int64_t root() const { return static_cast<std::int64_t>(nodes.size()) - 1; }
};

// Throws std::invalid_argument for num_csx < 1 or fanout < 2.
[[nodiscard]] SwarmxTree build_swarmx_tree(std::int64_t num_csx, std::int64_t fanout);

// A chain with the depth of the N-system tree and one system (system 0, the fullest): each
// level has one node. Every system of the full tree sees the same links and the same or fewer
// samples, so the fullest system's timeline, and the step, are the same (a test shows it).
[[nodiscard]] SwarmxTree build_swarmx_chain(std::int64_t num_csx, std::int64_t fanout);

}  // namespace csx::engine
