// Time to train from the training steps and a simulated step.
#include "search/time_to_train.hpp"

namespace csx::search {

std::optional<TimeToTrain> time_to_train(std::optional<std::int64_t> training_steps,
                                         model::Pass pass, const CandidateResult& c) {
  if (!training_steps || pass != model::Pass::kTrain || !c.simulated) return std::nullopt;
  const double steps = static_cast<double>(*training_steps);
  return TimeToTrain{steps * c.sim.step_time_s, steps * c.interval.step_time_s_low,
                     steps * c.interval.step_time_s_high};
}

}  // namespace csx::search
