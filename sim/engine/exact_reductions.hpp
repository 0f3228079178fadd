// Exact reductions of a simulation (pure code, no SimGrid): a smaller plan is simulated and
// its result extended to the whole plan, after a check that the extension holds. When a check
// fails, the caller simulates again without that reduction.
//
// * Steps: a training step ends with MemoryX's weight update, and nothing streams before it is
//   done, so every step starts from the same idle state; the only thing that may reach across
//   the boundary is the first microbatch's fixed overhead. When system 0 was still waiting for
//   its first layer's weights after that overhead, all steps are identical: one is simulated.
// * Microbatches: runs of identical microbatches reach a periodic steady state; at most
//   kKeptPerGroup of each size are simulated, and the last three must last the same.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "engine/simulation.hpp"

namespace csx::engine {

inline constexpr std::int64_t kKeptPerGroup = 4;
// Relative tolerance of the period check (SimGrid's clock arithmetic differs by ~1e-15).
inline constexpr double kPeriodTolerance = 1e-10;

// Which reductions apply to an input (its flags, a representative run, no trace).
[[nodiscard]] bool reduces_steps(const SimulationInput& input);
[[nodiscard]] bool collapses_microbatches(const SimulationInput& input);

// The input actually simulated for `input`, or nothing when no reduction applies.
[[nodiscard]] std::optional<SimulationInput> reduced_input(const SimulationInput& input);

// The result of the whole `input` from the result of reduced_input(input). When a check fails,
// clears that reduction's flag in `input` and returns nothing.
[[nodiscard]] std::optional<SimulationResult> extend_result(SimulationInput& input,
                                                            SimulationResult reduced);

// Simulates `inputs` with every reduction that applies: each round simulates the reduced plans
// (through `simulate`, results in order); a plan whose check fails loses that reduction and
// goes to the next round (at most one per reduction, then it runs in full).
[[nodiscard]] std::vector<SimulationResult> simulate_reduced(
    const std::vector<SimulationInput>& inputs,
    const std::function<std::vector<SimulationResult>(const std::vector<SimulationInput>&)>&
        simulate);

}  // namespace csx::engine
