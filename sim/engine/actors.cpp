// Actors of the weight-streaming execution model (docs/model.md#execution-model-weight-streaming).
#include "engine/actors.hpp"

#include <fmt/format.h>
#include <deque>

namespace csx::engine {
namespace s4u = simgrid::s4u;

namespace {

int g_payload = 0;  // messages carry no data: every actor knows the schedule

// Bytes a weight transfer moves (all its chunks).
std::uint64_t weight_bytes(const StepSchedule& S, const WeightTransfer& w) {
  return static_cast<std::uint64_t>(S.chunks(w.layer)) * S.weight_chunk_bytes(w.layer, w.backward);
}

}  // namespace

Context::Context(const StepSchedule& schedule, const SwarmxTree& t, ActivityListener& l)
    : sched(schedule), tree(t), listener(l) {
  for (std::size_t n = 0; n < tree.nodes.size(); ++n) {
    weights_to_node.push_back(s4u::Mailbox::by_name(fmt::format("w:swarmx-{}", n)));
    auto& inboxes = grads_to_node.emplace_back();
    const auto& node = tree.nodes[n];
    const auto children = node.child_nodes.size() + node.child_systems.size();
    for (std::size_t c = 0; c < children; ++c)
      inboxes.push_back(s4u::Mailbox::by_name(fmt::format("g:swarmx-{}:{}", n, c)));
  }
  for (std::size_t i = 0; i < tree.system_parent.size(); ++i)
    weights_to_system.push_back(s4u::Mailbox::by_name(fmt::format("w:csx-{}", i)));
  grads_to_memoryx = s4u::Mailbox::by_name("g:memoryx");
  updated = s4u::Semaphore::create(0);
  gradients_ready = s4u::Semaphore::create(0);
  if (schedule.input().input_samples_per_s > 0)
    for (std::size_t i = 0; i < tree.system_parent.size(); ++i) {
      input_ready.push_back(s4u::Semaphore::create(0));
      input_free.push_back(
          s4u::Semaphore::create(static_cast<unsigned>(schedule.num_microbatches())));
    }
}

s4u::Mailbox* Context::grads_out_of_node(std::int64_t node) const {
  const auto& n = tree.nodes[static_cast<std::size_t>(node)];
  if (n.parent < 0) return grads_to_memoryx;
  return grads_to_node[static_cast<std::size_t>(n.parent)]
                      [static_cast<std::size_t>(n.index_in_parent)];
}

s4u::Mailbox* Context::grads_out_of_system(std::int64_t system) const {
  const auto i = static_cast<std::size_t>(system);
  const auto& parent = tree.nodes[static_cast<std::size_t>(tree.system_parent[i])];
  // Systems come after child nodes in a node's inbox list (leaf nodes have no child nodes).
  return grads_to_node[static_cast<std::size_t>(tree.system_parent[i])]
                      [parent.child_nodes.size() +
                       static_cast<std::size_t>(tree.system_index_in_parent[i])];
}

void memoryx_streamer(Context& ctx) {
  const auto& S = ctx.sched;
  auto* out = ctx.weights_to_node[static_cast<std::size_t>(ctx.tree.root())];
  for (std::int64_t step = 0; step < S.steps(); ++step) {
    if (S.train() && step > 0) ctx.updated->acquire();  // the iteration boundary
    for (std::int64_t t = 0; t < S.weight_transfers_per_step(); ++t) {
      const auto w = S.weight_transfer(t);
      double first_start = -1;
      for (std::int64_t c = 0; c < S.chunks(w.layer); ++c) {
        auto comm = out->put_async(&g_payload, S.weight_chunk_bytes(w.layer, w.backward));
        ++ctx.activities;
        comm->wait();
        if (first_start < 0) first_start = comm->get_start_time();
      }
      ctx.listener.weights_streamed(w, step, first_start, s4u::Engine::get_clock(),
                                    weight_bytes(S, w));
    }
  }
}

void memoryx_gradient_receiver(Context& ctx) {
  const auto& S = ctx.sched;
  const std::int64_t L = S.num_layers(), k = S.num_microbatches();
  void* sink = nullptr;
  for (std::int64_t step = 0; step < S.steps(); ++step) {
    for (std::int64_t j = 0; j < k; ++j) {
      if (!S.sends_gradients(j)) continue;
      for (std::int64_t i = 0; i < L; ++i) {
        for (std::int64_t c = 0; c < S.chunks(L - 1 - i); ++c) {
          auto comm = ctx.grads_to_memoryx->get_async(&sink);
          ++ctx.activities;
          comm->wait();
        }
        if (j == k - 1) {
          // Last gradient of this layer in the step: its update can start.
          ctx.optimizer_queue.push_back(L - 1 - i);
          ctx.gradients_ready->release();
        }
      }
    }
  }
}

void memoryx_optimizer(Context& ctx) {
  const auto& S = ctx.sched;
  const std::int64_t L = S.num_layers();
  for (std::int64_t step = 0; step < S.steps(); ++step) {
    double work_s = 0;
    // Global-norm clipping: the clip factor needs every gradient of the step, so no update
    // starts before the last one has arrived.
    if (S.input().platform.update_after_all_gradients)
      for (std::int64_t i = 0; i < L; ++i) ctx.gradients_ready->acquire();
    for (std::int64_t i = 0; i < L; ++i) {
      if (!S.input().platform.update_after_all_gradients) ctx.gradients_ready->acquire();
      const std::int64_t layer = ctx.optimizer_queue.front();
      ctx.optimizer_queue.pop_front();
      const double t0 = s4u::Engine::get_clock();
      // The MemoryX host's speed is the optimizer rate, so the work is the parameter count.
      s4u::this_actor::execute(S.optimizer_parameters(layer));
      ++ctx.activities;
      work_s += S.optimizer_time_s(layer);
      ctx.listener.layer_updated(layer, step, t0, s4u::Engine::get_clock());
    }
    const double now = s4u::Engine::get_clock();
    ctx.result.step_end_s[static_cast<std::size_t>(step)] = now;
    ctx.listener.step_done(
        step, step == 0 ? ctx.origin : ctx.result.step_end_s[static_cast<std::size_t>(step - 1)],
        now);
    if (step == S.steps() - 1) ctx.result.optimizer_time_s = work_s;
    ctx.updated->release();
  }
}

void swarmx_broadcast(Context& ctx, std::int64_t node) {
  const auto& S = ctx.sched;
  const auto& n = ctx.tree.nodes[static_cast<std::size_t>(node)];
  std::vector<s4u::Mailbox*> children;
  for (const auto c : n.child_nodes)
    children.push_back(ctx.weights_to_node[static_cast<std::size_t>(c)]);
  for (const auto s : n.child_systems)
    children.push_back(ctx.weights_to_system[static_cast<std::size_t>(s)]);
  auto* in = ctx.weights_to_node[static_cast<std::size_t>(node)];
  const std::int64_t per_step = S.weight_transfers_per_step(), total = per_step * S.steps();
  void* sink = nullptr;
  // Chunks are received one ahead of the one being forwarded (store and forward per chunk).
  auto next = in->get_async(&sink);
  for (std::int64_t t = 0; t < total; ++t) {
    const auto w = S.weight_transfer(t % per_step);
    const std::int64_t chunks = S.chunks(w.layer);
    double received = 0;
    for (std::int64_t c = 0; c < chunks; ++c) {
      next->wait();
      if (c == 0) received = s4u::Engine::get_clock();
      if (c + 1 < chunks || t + 1 < total) next = in->get_async(&sink);
      std::vector<s4u::CommPtr> puts;
      for (auto* child : children)
        puts.push_back(child->put_async(&g_payload, S.weight_chunk_bytes(w.layer, w.backward)));
      ctx.activities += puts.size() + 1;
      s4u::Comm::wait_all(puts);
    }
    ctx.listener.weights_broadcast(node, w, t / per_step, received, s4u::Engine::get_clock(),
                                   weight_bytes(S, w));
  }
}

void swarmx_reduce(Context& ctx, std::int64_t node) {
  const auto& S = ctx.sched;
  const std::int64_t per_step = S.grad_transfers_per_step(), total = per_step * S.steps();
  if (total == 0) return;
  const auto& inboxes = ctx.grads_to_node[static_cast<std::size_t>(node)];
  auto* out = ctx.grads_out_of_node(node);
  std::vector<void*> sinks(inboxes.size(), nullptr);
  auto post = [&] {
    std::vector<s4u::CommPtr> gets;
    for (std::size_t c = 0; c < inboxes.size(); ++c)
      gets.push_back(inboxes[c]->get_async(&sinks[c]));
    ctx.activities += gets.size();
    return gets;
  };
  // One chunk from every child, summed, then sent up; the next chunk is received meanwhile.
  auto gets = post();
  for (std::int64_t t = 0; t < total; ++t) {
    const auto layer = S.grad_layer(t % per_step);
    const std::int64_t chunks = S.chunks(layer);
    double summed = 0;
    for (std::int64_t c = 0; c < chunks; ++c) {
      s4u::Comm::wait_all(gets);
      if (c == 0) summed = s4u::Engine::get_clock();
      if (c + 1 < chunks || t + 1 < total) gets = post();
      out->put(&g_payload, S.grad_chunk_bytes(layer));
      ++ctx.activities;
    }
    ctx.listener.gradients_reduced(node, t % per_step, t / per_step, summed,
                                   s4u::Engine::get_clock(),
                                   static_cast<std::uint64_t>(chunks) * S.grad_chunk_bytes(layer));
  }
}

void input_workers(Context& ctx, std::int64_t system) {
  const auto& S = ctx.sched;
  const auto i = static_cast<std::size_t>(system);
  const std::int64_t id = ctx.tree.system_ids[i];
  const double rate = S.input().input_samples_per_s;
  // The workers go on delivering during a training step's fixed cost, which plan::finish adds
  // after the simulation: a step's batch takes its input time less that cost here.
  const double batch_s = static_cast<double>(S.input().plan.split.batch_of(id)) / rate;
  const double overhead_s = S.train() ? S.input().platform.step_overhead_s : 0.0;
  const double share = batch_s > overhead_s ? (batch_s - overhead_s) / batch_s : 0.0;
  for (std::int64_t step = 0; step < S.steps(); ++step)
    for (std::int64_t j = 0; j < S.num_microbatches(); ++j) {
      ctx.input_free[i]->acquire();
      const std::int64_t samples = S.microbatch_samples(id, j);
      const double t0 = s4u::Engine::get_clock();
      s4u::this_actor::sleep_for(share * static_cast<double>(samples) / rate);
      if (samples > 0)
        ctx.listener.input_delivered(id, step, j, samples, t0, s4u::Engine::get_clock());
      ctx.input_ready[i]->release();
    }
}

namespace {

// A CS-X system's actor: one step after another, each microbatch layer by layer, with up to
// weight_buffers layers of weights in flight and one gradient buffer.
class CsxWorker {
 public:
  CsxWorker(Context& ctx, std::int64_t system)
      : ctx_(ctx),
        S_(ctx.sched),
        k_(S_.num_microbatches()),
        per_mb_(S_.weight_transfers_per_step() / k_),
        total_(S_.weight_transfers_per_step() * S_.steps()),
        peak_(S_.input().platform.peak_flops),
        id_(ctx.tree.system_ids[static_cast<std::size_t>(system)]),
        measured_(system == 0),  // system 0 holds the most samples
        system_(static_cast<std::size_t>(system)),
        in_(ctx.weights_to_system[static_cast<std::size_t>(system)]),
        grads_out_(ctx.grads_out_of_system(system)) {}

  void run() {
    ctx_.listener.system_started(id_, s4u::Engine::get_clock());
    while (posted_ < total_ && posted_ < S_.input().platform.weight_buffers) post();
    for (std::int64_t step = 0; step < S_.steps(); ++step) run_step(step);
    s4u::Comm::wait_all(last_grad_);
  }

 private:
  // Posts the receives of the next weight transfer's chunks.
  void post() {
    const auto w = S_.weight_transfer(posted_ % S_.weight_transfers_per_step());
    auto& group = prefetch_.emplace_back();
    for (std::int64_t c = 0; c < S_.chunks(w.layer); ++c) group.push_back(in_->get_async(&sink_));
    ctx_.activities += group.size();
    ++posted_;
  }

  void run_step(std::int64_t step) {
    compute_ = waiting_ = input_wait_ = 0;
    step_ = step;
    for (std::int64_t j = 0; j < k_; ++j) run_microbatch(step, j);
    if (!S_.train()) {
      auto& end = ctx_.result.step_end_s[static_cast<std::size_t>(step)];
      end = std::max(end, s4u::Engine::get_clock());
    }
    if (measured_ && step == S_.steps() - 1) {
      ctx_.result.compute_time_s = compute_;
      ctx_.result.exposed_stream_time_s = waiting_;
      ctx_.result.input_wait_s = input_wait_;
    }
  }

  void run_microbatch(std::int64_t step, std::int64_t j) {
    const auto& platform = S_.input().platform;
    const std::int64_t samples = S_.microbatch_samples(id_, j);
    const bool record = measured_ && step == S_.steps() - 1;
    // Its samples first, when the input is simulated: the buffer place frees as they go on.
    if (!ctx_.input_ready.empty()) {
      const double t0 = s4u::Engine::get_clock();
      ctx_.input_ready[system_]->acquire();
      input_wait_ += s4u::Engine::get_clock() - t0;
      ctx_.input_free[system_]->release();
    }
    const double mb_start = s4u::Engine::get_clock(), mb_compute = compute_, mb_wait = waiting_;
    if (platform.microbatch_overhead_s > 0) {
      const double t0 = s4u::Engine::get_clock();
      s4u::this_actor::execute(platform.microbatch_overhead_s * peak_);
      ++ctx_.activities;
      compute_ += platform.microbatch_overhead_s;
      ctx_.listener.microbatch_started(id_, step, j, samples, t0, s4u::Engine::get_clock());
    }
    for (std::int64_t i = 0; i < per_mb_; ++i) run_kernel(j, i, samples, record);
    if (record) {
      ctx_.result.microbatch_start_s.push_back(mb_start);
      ctx_.result.microbatch_end_s.push_back(s4u::Engine::get_clock());
      ctx_.result.microbatch_compute_s.push_back(compute_ - mb_compute);
      ctx_.result.microbatch_wait_s.push_back(waiting_ - mb_wait);
    }
  }

  // The i-th layer pass of microbatch j: wait for its weights, compute, send its gradient.
  void run_kernel(std::int64_t j, std::int64_t i, std::int64_t samples, bool record) {
    const auto w = S_.weight_transfer(j * per_mb_ + i);
    const double t0 = s4u::Engine::get_clock();
    s4u::Comm::wait_all(prefetch_.front());
    prefetch_.pop_front();
    const double t1 = s4u::Engine::get_clock();
    waiting_ += t1 - t0;
    if (record && j == 0 && i == 0) ctx_.result.first_weights_wait_s = t1 - t0;
    const double seconds = S_.kernel_time_s(w.layer, samples, w.backward);
    s4u::this_actor::execute(seconds * peak_);
    ++ctx_.activities;
    compute_ += seconds;
    ctx_.listener.kernel_done(id_, w, step_, samples, t1, s4u::Engine::get_clock(), t1 - t0);
    if (posted_ < total_) post();
    if (w.backward && S_.sends_gradients(j)) {
      s4u::Comm::wait_all(last_grad_);
      last_grad_.clear();
      for (std::int64_t c = 0; c < S_.chunks(w.layer); ++c)
        last_grad_.push_back(grads_out_->put_async(&g_payload, S_.grad_chunk_bytes(w.layer)));
      ctx_.activities += last_grad_.size();
    }
  }

  Context& ctx_;
  const StepSchedule& S_;
  const std::int64_t k_, per_mb_, total_;
  const double peak_;
  const std::int64_t id_;  // index among the N systems (`system` is the simulated one's)
  const bool measured_;
  const std::size_t system_;  // index among the simulated systems
  s4u::Mailbox* in_;
  s4u::Mailbox* grads_out_;
  void* sink_ = nullptr;
  std::deque<std::vector<s4u::CommPtr>> prefetch_;  // weight buffers being received
  std::int64_t posted_ = 0;
  std::vector<s4u::CommPtr> last_grad_;  // one gradient buffer
  double compute_ = 0, waiting_ = 0;     // this step's kernel and waiting seconds
  double input_wait_ = 0;                // this step's seconds waiting for input
  std::int64_t step_ = 0;
};

}  // namespace

void csx_worker(Context& ctx, std::int64_t system) {
  CsxWorker(ctx, system).run();
}

}  // namespace csx::engine
