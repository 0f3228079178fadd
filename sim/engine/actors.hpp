// The simulated actors of a weight-streaming step and the state they share.
#pragma once

#include <deque>
#include <simgrid/s4u.hpp>
#include <vector>

#include "engine/activity_listener.hpp"
#include "engine/simulation.hpp"
#include "plan/step_schedule.hpp"
#include "plan/swarmx_tree.hpp"

namespace csx::engine {

using plan::StepSchedule;
using plan::SwarmxTree;
using plan::WeightTransfer;

// State shared by the actors of one simulation (one process, one SimGrid engine).
struct Context {
  Context(const StepSchedule& schedule, const SwarmxTree& tree, ActivityListener& listener);

  const StepSchedule& sched;
  const SwarmxTree& tree;
  // Told of every activity as it ends (a trace recorder, or nobody).
  ActivityListener& listener;
  // Weights flow down: one inbox per SwarmX node and per CS-X.
  std::vector<simgrid::s4u::Mailbox*> weights_to_node;
  std::vector<simgrid::s4u::Mailbox*> weights_to_system;
  // Gradients flow up: one inbox per (SwarmX node, child), and MemoryX's.
  std::vector<std::vector<simgrid::s4u::Mailbox*>> grads_to_node;
  simgrid::s4u::Mailbox* grads_to_memoryx = nullptr;
  // Released by the optimizer when a step's weight update is complete.
  simgrid::s4u::SemaphorePtr updated;
  // Layers whose last gradient of the step has arrived, in arrival order, for the optimizer.
  std::deque<std::int64_t> optimizer_queue;
  simgrid::s4u::SemaphorePtr gradients_ready;
  // The input workers of each simulated system (when input_samples_per_s > 0): microbatches
  // delivered and not yet taken, and free places in the buffer of one step's batch.
  std::vector<simgrid::s4u::SemaphorePtr> input_ready, input_free;

  double origin = 0;  // engine clock when this simulation started
  SimulationResult result;
  std::uint64_t activities = 0;
  // The mailbox a node or system sends its gradients to.
  [[nodiscard]] simgrid::s4u::Mailbox* grads_out_of_node(std::int64_t node) const;
  [[nodiscard]] simgrid::s4u::Mailbox* grads_out_of_system(std::int64_t system) const;
};

// MemoryX: streams each layer's weights for every pass of every microbatch; from the second
// step on, waits for the previous step's weight update first (the iteration boundary).
void memoryx_streamer(Context& ctx);
// MemoryX: receives reduced gradients and accumulates them; queues each layer for its update
// once its last gradient of the step has arrived.
void memoryx_gradient_receiver(Context& ctx);
// MemoryX: runs the queued layer updates one after another at the optimizer rate; the step
// ends when every layer is updated. With platform update_after_all_gradients (global-norm
// gradient clipping: the clip factor needs the norm over every gradient of the step; Pascanu et
// al. 2013, `max_gradient_norm` in the Model Zoo configs) no update starts before the step's
// last gradient has arrived.
void memoryx_optimizer(Context& ctx);
// SwarmX node: broadcasts each layer it receives to its children (store and forward per layer,
// receiving the next layer while forwarding this one).
void swarmx_broadcast(Context& ctx, std::int64_t node);
// SwarmX node: sums one gradient from each child and forwards the sum up.
void swarmx_reduce(Context& ctx, std::int64_t node);
// Input workers of one CS-X (docs/model.md#input-pipeline): deliver its microbatches one after
// another at input_samples_per_s, up to one step's batch ahead of the system. A training step's
// fixed cost, added after the simulation, overlaps their work: each batch takes its input time
// less that cost (at least 0).
void input_workers(Context& ctx, std::int64_t system);
// CS-X system: runs its microbatches layer by layer, forward then backward, prefetching up to
// weight_buffers layers and sending each layer's gradient out.
void csx_worker(Context& ctx, std::int64_t system);

}  // namespace csx::engine
