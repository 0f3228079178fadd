// SimGrid platform of one cluster, built with the C++ platform API.
#include "engine/cluster_builder.hpp"

#include <fmt/format.h>

namespace csx::engine {
namespace {

namespace s4u = simgrid::s4u;

s4u::Link* duplex_link(s4u::NetZone* zone, const std::string& name, double bandwidth_Bps,
                       double latency_s) {
  auto* link = zone->create_split_duplex_link(name, bandwidth_Bps);
  link->set_latency(latency_s);
  link->seal();
  return link;
}

void connect(s4u::NetZone* zone, s4u::Host* upper, s4u::Host* lower,
             const std::vector<s4u::Link*>& links) {
  std::vector<s4u::LinkInRoute> route;
  for (auto* l : links) route.emplace_back(l, s4u::LinkInRoute::Direction::DOWN);
  zone->add_route(upper->get_netpoint(), lower->get_netpoint(), nullptr, nullptr, route, true);
}

}  // namespace

Cluster build_cluster(const platform::PlatformSpec& p, const SwarmxTree& tree) {
  auto* zone = s4u::create_full_zone("cluster");
  Cluster c;
  const double hop = p.swarmx_hop_latency_s;
  const double edge_Bps = p.swarmx_edge_Bps();
  c.memoryx = zone->create_host("memoryx", p.optimizer_rate_params_per_s);
  for (std::size_t n = 0; n < tree.nodes.size(); ++n)
    c.swarmx.push_back(zone->create_host(fmt::format("swarmx-{}", n), 1e9));
  for (std::size_t i = 0; i < tree.system_parent.size(); ++i)
    c.csx.push_back(zone->create_host(fmt::format("csx-{}", i), p.peak_flops));

  connect(zone, c.memoryx, c.swarmx[static_cast<std::size_t>(tree.root())],
          {duplex_link(zone, "memoryx-link", p.memoryx_link_Bps(), hop)});
  for (std::size_t n = 0; n < tree.nodes.size(); ++n)
    for (const auto child : tree.nodes[n].child_nodes)
      connect(zone, c.swarmx[n], c.swarmx[static_cast<std::size_t>(child)],
              {duplex_link(zone, fmt::format("swarmx-{}-{}", n, child), edge_Bps, hop)});
  for (std::size_t i = 0; i < c.csx.size(); ++i) {
    const auto leaf = static_cast<std::size_t>(tree.system_parent[i]);
    connect(zone, c.swarmx[leaf], c.csx[i],
            {duplex_link(zone, fmt::format("csx-{}-io", i), p.io_bandwidth_Bps(), hop),
             duplex_link(zone, fmt::format("csx-{}-fabric", i), p.fabric_bandwidth_Bps, 0),
             duplex_link(zone, fmt::format("csx-{}-sram", i), p.sram_bandwidth_Bps, 0)});
  }
  zone->seal();
  return c;
}

}  // namespace csx::engine
