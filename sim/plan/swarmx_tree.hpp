// The SwarmX broadcast-reduce tree (Cerebras SwarmX glossary page: nodes of fan-out 4 between
// MemoryX and the CS-X systems). Pure code.
#pragma once

#include <cstdint>
#include <vector>

namespace csx::plan {

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
  std::vector<std::int64_t> system_ids;  // each simulated system's index among the N
  int depth = 0;                         // levels of SwarmX nodes

  [[nodiscard]] std::int64_t root() const { return static_cast<std::int64_t>(nodes.size()) - 1; }
};

// Throws std::invalid_argument for num_csx < 1 or fanout < 2.
[[nodiscard]] SwarmxTree build_swarmx_tree(std::int64_t num_csx, std::int64_t fanout);

// The N-system tree pruned to the paths of `systems` (distinct, each < num_csx; system 0
// first): the same levels, each kept node with only its kept children. Nodes stay bottom-up,
// the root last. Throws std::invalid_argument for a system out of range, a repeated one, or
// system 0 not first.
[[nodiscard]] SwarmxTree build_swarmx_subtree(std::int64_t num_csx, std::int64_t fanout,
                                              const std::vector<std::int64_t>& systems);

// A chain with the depth of the N-system tree and one system (system 0, the fullest): each
// level has one node. Every system of the full tree sees the same links and the same or fewer
// samples, so the fullest system's timeline, and the step, are the same (a test shows it).
[[nodiscard]] SwarmxTree build_swarmx_chain(std::int64_t num_csx, std::int64_t fanout);

}  // namespace csx::plan
