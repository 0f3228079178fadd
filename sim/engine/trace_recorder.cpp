// Trace events from the actors' reports (names, arguments and counters of the timeline).
#include "engine/trace_recorder.hpp"

#include <fmt/format.h>

#include "model/compute_model.hpp"

namespace csx::engine {
namespace {

std::string pass_name(bool backward) {
  return backward ? "bwd" : "fwd";
}

}  // namespace

TraceRecorder::TraceRecorder(const plan::StepSchedule& schedule, const plan::SwarmxTree& tree)
    : S_(schedule), tree_(tree) {
  traced_node_.assign(tree.nodes.size(), false);
  for (auto n = tree.system_parent.front(); n >= 0;
       n = tree.nodes[static_cast<std::size_t>(n)].parent)
    traced_node_[static_cast<std::size_t>(n)] = true;
  // SRAM in use: the memory model's fixed parts, plus the activations a microbatch holds, kept
  // layer by layer in forward (each layer's share of the store-all activations) and released
  // in backward; at the end of forward, mem_activations_bytes x samples / MBS.
  const auto& in = S_.input();
  fixed_bytes_ =
      in.memory.weight_buffers_bytes + in.memory.gradients_bytes + in.memory.workspace_bytes;
  double total = 0;
  for (const auto& layer : in.costs.layers)
    total += layer.kept_activation_bytes(in.platform.kept_bytes_per_attention_score);
  const auto L = static_cast<double>(in.costs.layers.size());
  double sum = 0;
  for (const auto& layer : in.costs.layers) {
    sum +=
        total > 0 ? layer.kept_activation_bytes(in.platform.kept_bytes_per_attention_score) : 1.0;
    held_share_.push_back(sum / (total > 0 ? total : L));
  }
  if (!held_share_.empty()) held_share_.back() = 1.0;
}

const std::string& TraceRecorder::layer_name(std::int64_t layer) const {
  return S_.input().costs.layers[static_cast<std::size_t>(layer)].name;
}

plan::TraceArgs TraceRecorder::transfer_args(const plan::WeightTransfer& w, std::int64_t step,
                                             std::int64_t level) const {
  plan::TraceArgs args{{"layer", layer_name(w.layer)},
                       {"pass", pass_name(w.backward)},
                       {"microbatch", w.microbatch},
                       {"step", step}};
  if (level > 0) args.emplace_back("level", level);
  return args;
}

void TraceRecorder::event(std::string track, std::string name, const char* category, double start_s,
                          double end_s, plan::TraceArgs args) {
  events_.push_back(
      {std::move(track), std::move(name), category, start_s, end_s, std::move(args), false});
}

void TraceRecorder::transfer(const std::string& track, std::string name, const char* category,
                             double start_s, double end_s, std::uint64_t bytes,
                             plan::TraceArgs args) {
  args.emplace_back("bytes", static_cast<std::int64_t>(bytes));
  event(track, std::move(name), category, start_s, end_s, std::move(args));
  const double rate = end_s > start_s ? static_cast<double>(bytes) / (end_s - start_s) : 0.0;
  count(track + " bandwidth", start_s, {{"Bps", rate}});
  count(track + " bandwidth", end_s, {{"Bps", 0.0}});
}

void TraceRecorder::count(std::string counter, double time_s, plan::TraceArgs values) {
  events_.push_back({std::move(counter), "", "counter", time_s, time_s, std::move(values), true});
}

void TraceRecorder::count_sram(std::int64_t system, double time_s, double activations_bytes) {
  count(fmt::format("sram in use csx-{}", system), time_s,
        {{"bytes", fixed_bytes_ + activations_bytes}});
}

double TraceRecorder::activations_after(const plan::WeightTransfer& w, std::int64_t samples) const {
  const auto& in = S_.input();
  const double all = in.memory.activations_bytes * static_cast<double>(samples) /
                     static_cast<double>(in.plan.micro_batch_size);
  const auto i = static_cast<std::size_t>(w.layer);
  if (!S_.train()) return w.layer + 1 < S_.num_layers() ? all : 0.0;
  if (!w.backward) return all * held_share_[i];
  return i > 0 ? all * held_share_[i - 1] : 0.0;
}

void TraceRecorder::weights_streamed(const plan::WeightTransfer& w, std::int64_t step,
                                     double start_s, double end_s, std::uint64_t bytes) {
  transfer(
      "memoryx stream",
      fmt::format("stream {} {} mb {}", layer_name(w.layer), pass_name(w.backward), w.microbatch),
      "weight streaming", start_s, end_s, bytes, transfer_args(w, step));
}

void TraceRecorder::layer_updated(std::int64_t layer, std::int64_t step, double start_s,
                                  double end_s) {
  event("memoryx optimizer", fmt::format("optimizer {}", layer_name(layer)), "optimizer", start_s,
        end_s,
        {{"layer", layer_name(layer)},
         {"parameters", static_cast<std::int64_t>(S_.optimizer_parameters(layer))},
         {"step", step}});
}

void TraceRecorder::step_done(std::int64_t step, double start_s, double end_s) {
  event("steps", fmt::format("step {}", step), "step", start_s, end_s, {{"step", step}});
}

void TraceRecorder::weights_broadcast(std::int64_t node, const plan::WeightTransfer& w,
                                      std::int64_t step, double start_s, double end_s,
                                      std::uint64_t bytes) {
  if (!traced_node_[static_cast<std::size_t>(node)]) return;
  const int level = tree_.nodes[static_cast<std::size_t>(node)].level;
  transfer(fmt::format("swarmx level {} broadcast", level),
           fmt::format("broadcast {} {} mb {}", layer_name(w.layer), pass_name(w.backward),
                       w.microbatch),
           "broadcast", start_s, end_s, bytes, transfer_args(w, step, level));
}

void TraceRecorder::gradients_reduced(std::int64_t node, std::int64_t index_in_step,
                                      std::int64_t step, double start_s, double end_s,
                                      std::uint64_t bytes) {
  if (!traced_node_[static_cast<std::size_t>(node)]) return;
  const auto layer = S_.grad_layer(index_in_step);
  // Gradients leave after every microbatch, or only after the last one.
  const std::int64_t k = S_.num_microbatches();
  const std::int64_t mb =
      S_.grad_transfers_per_step() == k * S_.num_layers() ? index_in_step / S_.num_layers() : k - 1;
  const int level = tree_.nodes[static_cast<std::size_t>(node)].level;
  transfer(fmt::format("swarmx level {} reduce", level),
           fmt::format("reduce {} mb {}", layer_name(layer), mb), "gradient reduce", start_s, end_s,
           bytes,
           {{"layer", layer_name(layer)}, {"microbatch", mb}, {"step", step}, {"level", level}});
}

void TraceRecorder::system_started(std::int64_t system, double time_s) {
  count_sram(system, time_s, 0);
}

void TraceRecorder::microbatch_started(std::int64_t system, std::int64_t step,
                                       std::int64_t microbatch, std::int64_t samples,
                                       double start_s, double end_s) {
  event(fmt::format("csx-{}", system), fmt::format("microbatch {} start", microbatch), "overhead",
        start_s, end_s,
        {{"system", system}, {"microbatch", microbatch}, {"samples", samples}, {"step", step}});
}

void TraceRecorder::input_delivered(std::int64_t system, std::int64_t step, std::int64_t microbatch,
                                    std::int64_t samples, double start_s, double end_s) {
  event(fmt::format("input csx-{}", system), fmt::format("input mb {}", microbatch), "input",
        start_s, end_s,
        {{"system", system}, {"microbatch", microbatch}, {"samples", samples}, {"step", step}});
}

void TraceRecorder::kernel_done(std::int64_t system, const plan::WeightTransfer& w,
                                std::int64_t step, std::int64_t samples, double start_s,
                                double end_s, double weights_wait_s) {
  const auto& layer = S_.input().costs.layers[static_cast<std::size_t>(w.layer)];
  event(fmt::format("csx-{}", system),
        fmt::format("{} {} mb {}", pass_name(w.backward), layer.name, w.microbatch),
        w.backward ? "backward" : "forward", start_s, end_s,
        {{"system", system},
         {"layer", layer.name},
         {"pass", pass_name(w.backward)},
         {"microbatch", w.microbatch},
         {"samples", samples},
         {"step", step},
         {"FLOPs", model::pass_flops(layer, static_cast<double>(samples), w.backward,
                                     S_.input().recompute_passes)},
         {"weights wait s", weights_wait_s}});
  count_sram(system, end_s, activations_after(w, samples));
}

std::vector<plan::TraceEvent> TraceRecorder::take(double origin,
                                                  const std::vector<double>& step_end_s) {
  std::vector<plan::TraceEvent> out = std::move(events_);
  events_.clear();
  for (auto& e : out) {
    e.start_s -= origin;
    e.end_s -= origin;
  }
  if (!S_.train())
    for (std::size_t s = 0; s < step_end_s.size(); ++s)
      out.push_back({"steps",
                     fmt::format("step {}", s),
                     "step",
                     s == 0 ? 0.0 : step_end_s[s - 1],
                     step_end_s[s],
                     {{"step", static_cast<std::int64_t>(s)}},
                     false});
  return out;
}

}  // namespace csx::engine
