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
  t.system_ids.resize(static_cast<std::size_t>(num_csx));
  for (std::int64_t s = 0; s < num_csx; ++s) t.system_ids[static_cast<std::size_t>(s)] = s;
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

SwarmxTree build_swarmx_subtree(std::int64_t num_csx, std::int64_t fanout,
                                const std::vector<std::int64_t>& systems) {
  const SwarmxTree full = build_swarmx_tree(num_csx, fanout);
  if (systems.empty() || systems.front() != 0)
    throw std::invalid_argument("a SwarmX subtree starts with system 0");
  // Keep the nodes on each system's path to the root.
  std::vector<bool> keep(full.nodes.size(), false);
  std::vector<bool> seen(static_cast<std::size_t>(num_csx), false);
  for (const auto s : systems) {
    if (s < 0 || s >= num_csx || seen[static_cast<std::size_t>(s)])
      throw std::invalid_argument("SwarmX subtree systems must be distinct and below num_csx");
    seen[static_cast<std::size_t>(s)] = true;
    for (auto n = full.system_parent[static_cast<std::size_t>(s)]; n >= 0;
         n = full.nodes[static_cast<std::size_t>(n)].parent)
      keep[static_cast<std::size_t>(n)] = true;
  }
  std::vector<std::int64_t> new_index(full.nodes.size(), -1);
  SwarmxTree t;
  t.depth = full.depth;
  for (std::size_t n = 0; n < full.nodes.size(); ++n) {
    if (!keep[n]) continue;
    new_index[n] = static_cast<std::int64_t>(t.nodes.size());
    SwarmxTree::Node node;
    node.level = full.nodes[n].level;
    for (const auto c : full.nodes[n].child_nodes) {
      if (!keep[static_cast<std::size_t>(c)]) continue;
      auto& child = t.nodes[static_cast<std::size_t>(new_index[static_cast<std::size_t>(c)])];
      child.parent = new_index[n];
      child.index_in_parent = static_cast<std::int64_t>(node.child_nodes.size());
      node.child_nodes.push_back(new_index[static_cast<std::size_t>(c)]);
    }
    t.nodes.push_back(node);
  }
  // Systems in the order given, each after its leaf's earlier systems.
  for (const auto s : systems) {
    const auto leaf =
        new_index[static_cast<std::size_t>(full.system_parent[static_cast<std::size_t>(s)])];
    auto& node = t.nodes[static_cast<std::size_t>(leaf)];
    t.system_parent.push_back(leaf);
    t.system_index_in_parent.push_back(static_cast<std::int64_t>(node.child_systems.size()));
    node.child_systems.push_back(static_cast<std::int64_t>(t.system_ids.size()));
    t.system_ids.push_back(s);
  }
  return t;
}

SwarmxTree build_swarmx_chain(std::int64_t num_csx, std::int64_t fanout) {
  return build_swarmx_subtree(num_csx, fanout, {0});
}

}  // namespace csx::plan
