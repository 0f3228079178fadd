// One simulation: SimGrid engine, cluster platform, actors; then the step-time summary.
#include <fmt/format.h>
#include <algorithm>
#include <csignal>
#include <simgrid/s4u.hpp>
#include <stdexcept>

#include "engine/actors.hpp"
#include "engine/cluster_builder.hpp"
#include "engine/engine_session.hpp"
#include "engine/exact_reductions.hpp"
#include "engine/simulation.hpp"
#include "engine/trace_recorder.hpp"
#include "plan/step_schedule.hpp"
#include "plan/swarmx_tree.hpp"

namespace csx::engine {
namespace s4u = simgrid::s4u;
using plan::build_swarmx_subtree;
using plan::build_swarmx_tree;
namespace {

// CM02 with factors of 1, no cross-traffic and a huge TCP window: a link moves exactly its
// bandwidth (LV08, the default, scales latency by 13.01 and bandwidth by 0.97;
// docs/model.md#execution-model-weight-streaming).
const std::vector<std::string> kEngineArgs{
    "csxsim",
    "--log=root.thresh:critical",
    "--cfg=network/model:CM02",
    "--cfg=network/TCP-gamma:1e18",
    "--cfg=network/crosstraffic:0",
    "--cfg=network/latency-factor:1",
    "--cfg=network/bandwidth-factor:1",
    "--cfg=network/weight-S:0",
    // Actor stacks of 64 KiB (default 8 MiB): the actors are shallow, and small stacks come
    // from the heap instead of an mmap per actor (measured: XL explore 7 % faster than 256 KiB).
    "--cfg=contexts/stack-size:64",
};

}  // namespace

namespace {

// One plan on an already built cluster; every time is taken relative to this run's start.
SimulationResult run_on(s4u::Engine& engine, const Cluster& cluster, const SwarmxTree& tree,
                        const EngineRun& run) {
  const SimulationInput& input = run.input;
  if (input.simulated_steps < 1) throw std::invalid_argument("simulate at least one step");
  const StepSchedule schedule(input, run.system0_microbatches);
  ActivityListener nobody;
  TraceRecorder recorder(schedule, tree);
  Context ctx(schedule, tree, run.options.record_trace ? recorder : nobody);
  ctx.origin = s4u::Engine::get_clock();
  ctx.result.step_end_s.assign(static_cast<std::size_t>(input.simulated_steps), 0.0);

  s4u::Actor::create("memoryx-streamer", cluster.memoryx, [&] { memoryx_streamer(ctx); });
  if (schedule.train()) {
    s4u::Actor::create("memoryx-gradients", cluster.memoryx,
                       [&] { memoryx_gradient_receiver(ctx); });
    s4u::Actor::create("memoryx-optimizer", cluster.memoryx, [&] { memoryx_optimizer(ctx); });
  }
  for (std::size_t n = 0; n < tree.nodes.size(); ++n) {
    const auto node = static_cast<std::int64_t>(n);
    s4u::Actor::create(fmt::format("swarmx-{}-broadcast", n), cluster.swarmx[n],
                       [&ctx, node] { swarmx_broadcast(ctx, node); });
    if (schedule.train())
      s4u::Actor::create(fmt::format("swarmx-{}-reduce", n), cluster.swarmx[n],
                         [&ctx, node] { swarmx_reduce(ctx, node); });
  }
  for (std::size_t i = 0; i < cluster.csx.size(); ++i) {
    const auto system = static_cast<std::int64_t>(i);
    s4u::Actor::create(fmt::format("csx-{}", i), cluster.csx[i],
                       [&ctx, system] { csx_worker(ctx, system); });
    if (!ctx.input_ready.empty())
      s4u::Actor::create(fmt::format("input-{}", i), cluster.csx[i],
                         [&ctx, system] { input_workers(ctx, system); });
  }
  engine.run();
  // SimGrid returns from run() after reporting a deadlock; never let that pass as a result.
  if (engine.get_actor_count() != 0)
    throw std::runtime_error(
        fmt::format("simulation deadlocked with {} actors blocked", engine.get_actor_count()));
  SimulationResult r = std::move(ctx.result);
  for (auto& t : r.step_end_s) t -= ctx.origin;
  for (auto& t : r.microbatch_start_s) t -= ctx.origin;
  for (auto& t : r.microbatch_end_s) t -= ctx.origin;
  for (std::size_t s = 0; s < r.step_end_s.size(); ++s)
    if (!(r.step_end_s[s] > (s > 0 ? r.step_end_s[s - 1] : 0.0)))
      throw std::runtime_error("simulation ended without completing every step");
  if (run.options.record_trace) r.trace = recorder.take(ctx.origin, r.step_end_s);
  const auto last = r.step_end_s.size() - 1;
  r.step_time_s = r.step_end_s[last] - (last > 0 ? r.step_end_s[last - 1] : 0.0);
  r.end_time_s = r.step_end_s[last];
  r.activities = ctx.activities;
  return r;
}

}  // namespace

// A representative run's systems: system 0 (the fullest), then the picked ones in order.
std::vector<std::int64_t> simulated_systems(const Options& options) {
  std::vector<std::int64_t> systems{0};
  for (const auto s : options.shown_systems)
    if (std::find(systems.begin(), systems.end(), s) == systems.end()) systems.push_back(s);
  return systems;
}

// SimGrid's command line, kept alive for the engine.
struct EngineArgs {
  std::vector<std::string> args = kEngineArgs;
  std::vector<char*> argv;
  int argc = 0;
  EngineArgs() {
    for (auto& a : args) argv.push_back(a.data());
    argc = static_cast<int>(argv.size());
  }
};

// SimGrid's engine installs a SIGINT handler that exits with status 1; the simulation processes
// keep the disposition they inherited instead (ignored in a background job, default otherwise).
struct SigintDisposition {
  struct sigaction saved {};
  SigintDisposition() { ::sigaction(SIGINT, nullptr, &saved); }
  void restore() const { ::sigaction(SIGINT, &saved, nullptr); }
};

struct EngineSession::Impl {
  EngineArgs args;
  SigintDisposition sigint;
  s4u::Engine engine;
  SwarmxTree tree;
  Cluster cluster;

  explicit Impl(const EngineRun& first)
      : engine(&args.argc, args.argv.data()),
        tree(first.options.representative ? build_swarmx_subtree(first.input.plan.split.num_csx,
                                                                 first.input.platform.swarmx_fanout,
                                                                 simulated_systems(first.options))
                                          : build_swarmx_tree(first.input.plan.split.num_csx,
                                                              first.input.platform.swarmx_fanout)),
        cluster(build_cluster(first.input.platform, tree)) {
    sigint.restore();
  }
};

EngineSession::EngineSession(const EngineRun& first) : impl_(std::make_unique<Impl>(first)) {}

EngineSession::~EngineSession() = default;

SimulationResult EngineSession::run(const EngineRun& run) {
  return run_on(impl_->engine, impl_->cluster, impl_->tree, run);
}

}  // namespace csx::engine
