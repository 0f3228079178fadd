// Time to train: the training steps times a candidate's simulated step time
// (docs/questions.md#questions-csxsim-answers: time to train = steps x step time), with its 80 %
// interval.
#pragma once

#include <cstdint>
#include <optional>

#include "search/search.hpp"

namespace csx::search {

// Seconds: the time to train and the bounds of its 80 % interval (the step time's interval,
// model/prediction_interval.hpp, times the steps).
struct TimeToTrain {
  double seconds = 0;
  double low_s = 0;
  double high_s = 0;
};

// steps x c.sim.step_time_s for a training pass with training steps and a simulated candidate;
// empty otherwise (an eval pass, no steps, a candidate that does not fit). Throws nothing.
[[nodiscard]] std::optional<TimeToTrain> time_to_train(std::optional<std::int64_t> training_steps,
                                                       model::Pass pass, const CandidateResult& c);

}  // namespace csx::search
