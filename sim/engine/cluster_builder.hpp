// Builds the SimGrid platform of a weight-streaming cluster.
//
//            memoryx              host: speed = optimizer rate (parameters/s)
//               |                 link: memoryx_bandwidth_Bps x io_scale
//          swarmx root            broadcast-reduce node
//          /  |  |  \ (x4)        links: io_ports x SwarmX port x io_scale per edge
//       swarmx nodes ...          (fanout 4 per level, depth = ceil(log4 N), at least 1)
//       /  |  |  \ (x4)
//    csx-0 ... csx-N-1            host: speed = peak FLOP/s; route in: 12 x 100 GbE (one
//                                 bundled link), wafer fabric, SRAM bandwidth
//
// Every link is split-duplex: weights flow down while gradients flow up.
#pragma once

#include <simgrid/s4u.hpp>
#include <vector>

#include "plan/step_schedule.hpp"
#include "plan/swarmx_tree.hpp"
#include "platform/platform_spec.hpp"

namespace csx::engine {

using plan::StepSchedule;
using plan::SwarmxTree;
using plan::WeightTransfer;

struct Cluster {
  simgrid::s4u::Host* memoryx = nullptr;
  std::vector<simgrid::s4u::Host*> swarmx;  // by tree node index
  std::vector<simgrid::s4u::Host*> csx;     // by system index
};

// Creates the zone, hosts, links and routes. Call once, before Engine::run().
Cluster build_cluster(const platform::PlatformSpec& p, const SwarmxTree& tree);

}  // namespace csx::engine
