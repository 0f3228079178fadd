// The timeline of a simulation (docs/sweeps.md#traces): listens to the actors'
// reports (engine/activity_listener.hpp) and writes one event per activity, with the bandwidth
// counter of each transfer track and the SRAM counter of each CS-X. SwarmX tracks show the
// nodes on system 0's path, one per level. No SimGrid here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/activity_listener.hpp"
#include "plan/simulation_plan.hpp"
#include "plan/step_schedule.hpp"
#include "plan/swarmx_tree.hpp"

namespace csx::engine {

class TraceRecorder final : public ActivityListener {
 public:
  TraceRecorder(const plan::StepSchedule& schedule, const plan::SwarmxTree& tree);

  void weights_streamed(const plan::WeightTransfer& w, std::int64_t step, double start_s,
                        double end_s, std::uint64_t bytes) override;
  void layer_updated(std::int64_t layer, std::int64_t step, double start_s, double end_s) override;
  void step_done(std::int64_t step, double start_s, double end_s) override;
  void weights_broadcast(std::int64_t node, const plan::WeightTransfer& w, std::int64_t step,
                         double start_s, double end_s, std::uint64_t bytes) override;
  void gradients_reduced(std::int64_t node, std::int64_t index_in_step, std::int64_t step,
                         double start_s, double end_s, std::uint64_t bytes) override;
  void system_started(std::int64_t system, double time_s) override;
  void microbatch_started(std::int64_t system, std::int64_t step, std::int64_t microbatch,
                          std::int64_t samples, double start_s, double end_s) override;
  void input_delivered(std::int64_t system, std::int64_t step, std::int64_t microbatch,
                       std::int64_t samples, double start_s, double end_s) override;
  void kernel_done(std::int64_t system, const plan::WeightTransfer& w, std::int64_t step,
                   std::int64_t samples, double start_s, double end_s,
                   double weights_wait_s) override;

  // The events, times made relative to `origin` (the clock when the run began); evaluation
  // (which has no weight update) then gets one "steps" event per step from `step_end_s`
  // (relative times).
  [[nodiscard]] std::vector<plan::TraceEvent> take(double origin,
                                                   const std::vector<double>& step_end_s);

 private:
  void event(std::string track, std::string name, const char* category, double start_s,
             double end_s, plan::TraceArgs args = {});
  // A transfer's event (with a "bytes" argument) and, on the counter "<track> bandwidth", its
  // average rate (B/s) over the event, back to 0 at its end.
  void transfer(const std::string& track, std::string name, const char* category, double start_s,
                double end_s, std::uint64_t bytes, plan::TraceArgs args);
  void count(std::string counter, double time_s, plan::TraceArgs values);
  void count_sram(std::int64_t system, double time_s, double activations_bytes);
  [[nodiscard]] const std::string& layer_name(std::int64_t layer) const;
  [[nodiscard]] plan::TraceArgs transfer_args(const plan::WeightTransfer& w, std::int64_t step,
                                              std::int64_t level = 0) const;
  // Activations a system holds once a layer pass of a microbatch of `samples` is done.
  [[nodiscard]] double activations_after(const plan::WeightTransfer& w, std::int64_t samples) const;

  const plan::StepSchedule& S_;
  const plan::SwarmxTree& tree_;
  std::vector<bool> traced_node_;   // SwarmX nodes on system 0's path
  double fixed_bytes_ = 0;          // SRAM besides activations
  std::vector<double> held_share_;  // activations held after each layer's forward (fraction)
  std::vector<plan::TraceEvent> events_;
};

}  // namespace csx::engine
