// What the actors of a simulation report as they go (engine/actors.cpp): each activity with its
// start and end on the engine clock (seconds). The actors' behaviour never depends on who
// listens; this base ignores every report, and engine/trace_recorder.hpp turns them into a
// timeline. No SimGrid here.
#pragma once

#include <cstdint>

#include "plan/step_schedule.hpp"

namespace csx::engine {

class ActivityListener {
 public:
  virtual ~ActivityListener() = default;

  // MemoryX sent one pass's weights of a layer for a microbatch: `bytes` over all its chunks.
  virtual void weights_streamed(const plan::WeightTransfer& /*w*/, std::int64_t /*step*/,
                                double /*start_s*/, double /*end_s*/, std::uint64_t /*bytes*/) {}
  // MemoryX updated a layer's weights in a training step.
  virtual void layer_updated(std::int64_t /*layer*/, std::int64_t /*step*/, double /*start_s*/,
                             double /*end_s*/) {}
  // A training step ended with its last weight update.
  virtual void step_done(std::int64_t /*step*/, double /*start_s*/, double /*end_s*/) {}
  // SwarmX node `node` forwarded a weight transfer to its children.
  virtual void weights_broadcast(std::int64_t /*node*/, const plan::WeightTransfer& /*w*/,
                                 std::int64_t /*step*/, double /*start_s*/, double /*end_s*/,
                                 std::uint64_t /*bytes*/) {}
  // SwarmX node `node` summed and sent up the gradient transfer `index_in_step` of a step
  // (plan::StepSchedule::grad_layer).
  virtual void gradients_reduced(std::int64_t /*node*/, std::int64_t /*index_in_step*/,
                                 std::int64_t /*step*/, double /*start_s*/, double /*end_s*/,
                                 std::uint64_t /*bytes*/) {}
  // A CS-X system (its index among the N) began its first step.
  virtual void system_started(std::int64_t /*system*/, double /*time_s*/) {}
  // A system paid microbatch j's fixed overhead (platform microbatch_overhead_s).
  virtual void microbatch_started(std::int64_t /*system*/, std::int64_t /*step*/,
                                  std::int64_t /*microbatch*/, std::int64_t /*samples*/,
                                  double /*start_s*/, double /*end_s*/) {}
  // The input workers of a system delivered microbatch j's samples (docs/model.md#input-pipeline).
  virtual void input_delivered(std::int64_t /*system*/, std::int64_t /*step*/,
                               std::int64_t /*microbatch*/, std::int64_t /*samples*/,
                               double /*start_s*/, double /*end_s*/) {}
  // A system ran one layer pass of a microbatch of `samples` samples, after waiting
  // `weights_wait_s` for its weights.
  virtual void kernel_done(std::int64_t /*system*/, const plan::WeightTransfer& /*w*/,
                           std::int64_t /*step*/, std::int64_t /*samples*/, double /*start_s*/,
                           double /*end_s*/, double /*weights_wait_s*/) {}
};

}  // namespace csx::engine
