// Building the SwarmX tree and its one-system chain.
#include "plan/swarmx_tree.hpp"

#include <algorithm>
#include <stdexcept>

namespace csx::plan {

SwarmxTree build_swarmx_tree(std::int64_t num_csx, std::int64_t fanout) {
  if (num_csx < 1 || fanout < 2)
    throw std::invalid_argument("a SwarmX tree needs num_csx >= 1 and a fan-out >= 2");
  SwarmxTree t;
  t.system_parent.resize(static_cast<std::size_t>(num_csx));
  t.system_index_in_parent.resize(static_cast<std::size_t>(num_csx));
  // Level 1: nodes over the systems.
  std::vector<std::int64_t> level;
  for (std::int64_t first = 0; first < num_csx; first += fanout) {
    SwarmxTree::Node n;
    for (std::int64_t s = first; s < std::min(num_csx, first + fanout); ++s) {
      t.system_parent[static_cast<std::size_t>(s)] = static_cast<std::int64_t>(t.nodes.size());
      t.system_index_in_parent[static_cast<std::size_t>(s)] =
          static_cast<std::int64_t>(n.child_systems.size());
      n.child_systems.push_back(s);
    }
    level.push_back(static_cast<std::int64_t>(t.nodes.size()));
    t.nodes.push_back(n);
  }
  t.depth = 1;
  while (level.size() > 1) {
    std::vector<std::int64_t> up;
    for (std::size_t first = 0; first < level.size(); first += static_cast<std::size_t>(fanout)) {
      SwarmxTree::Node n;
      n.level = t.depth + 1;
      const auto id = static_cast<std::int64_t>(t.nodes.size());
      for (std::size_t c = first;
           c < std::min(level.size(), first + static_cast<std::size_t>(fanout)); ++c) {
        auto& child = t.nodes[static_cast<std::size_t>(level[c])];
        child.parent = id;
        child.index_in_parent = static_cast<std::int64_t>(n.child_nodes.size());
        n.child_nodes.push_back(level[c]);
      }
      up.push_back(id);
      t.nodes.push_back(n);
    }
    level = up;
    ++t.depth;
  }
  return t;
}

SwarmxTree build_swarmx_chain(std::int64_t num_csx, std::int64_t fanout) {
  const int depth = build_swarmx_tree(num_csx, fanout).depth;
  SwarmxTree t;
  t.system_parent = {0};
  t.system_index_in_parent = {0};
  t.depth = depth;
  for (int level = 1; level <= depth; ++level) {
    SwarmxTree::Node n;
    n.level = level;
    if (level == 1)
      n.child_systems = {0};
    else
      n.child_nodes = {level - 2};
    if (level < depth) {
      n.parent = level;
      n.index_in_parent = 0;
    }
    t.nodes.push_back(n);
  }
  return t;
}

}  // namespace csx::plan
