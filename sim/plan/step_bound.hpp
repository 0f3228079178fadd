// What bounds a step: the busy time of the slowest link for weights and for gradients, and the
// largest of compute, weight streaming, gradient reduce and optimizer. Pure code, computed once
// per simulated plan (engine::simulate_all) on the final result.
#pragma once

#include <string>

#include "plan/simulation_plan.hpp"

namespace csx::plan {

// Busy seconds of the slowest link for one step's weights and gradients (bytes / bandwidth).
struct LinkBusy {
  double weights_s = 0;
  double gradients_s = 0;
};
[[nodiscard]] LinkBusy link_busy_times(const SimulationInput& input);

// The largest of compute, weight streaming, gradient reduce and optimizer busy times.
[[nodiscard]] std::string bound_of(const SimulationResult& r);

// Sets the link busy times and the bound of a finished result.
void summarize(const SimulationInput& input, SimulationResult& r);

}  // namespace csx::plan
