// The engine's three exact reductions (pure code, no SimGrid), each switched by engine::Options
// and each tested against the full simulation (tests/engine). The last two simulate a smaller
// plan and extend its result to the whole plan after a check that the extension holds; when a
// check fails, the plan is simulated again without that reduction.
//
// * Representative systems (Options::representative): every system sees identical links and
//   the others hold the same or fewer samples than system 0, so one system per SwarmX level
//   (the fullest) and its path through the tree give the step of all N
//   (plan/swarmx_tree.hpp, build_swarmx_subtree).
// * Steps (Options::reduce_steps): a training step ends with MemoryX's weight update, and
//   nothing streams before it is done, so every step starts from the same idle state; the only
//   thing that may reach across the boundary is the first microbatch's fixed overhead. When
//   system 0 was still waiting for its first layer's weights after that overhead, all steps
//   are identical: one is simulated.
// * Microbatches (Options::collapse_microbatches): runs of identical microbatches reach a
//   periodic steady state; at most kKeptPerGroup of each size are simulated, and the last three
//   must last the same.
// A trace (Options::record_trace) turns the last two off.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "engine/simulation.hpp"
#include "plan/step_schedule.hpp"

namespace csx::engine {

inline constexpr std::int64_t kKeptPerGroup = 4;
// Relative tolerance of the period check (SimGrid's clock arithmetic differs by ~1e-15).
inline constexpr double kPeriodTolerance = 1e-10;

// A run as the engine simulates it: a reduced one replaces system 0's microbatches.
struct EngineRun {
  SimulationInput input;
  Options options;
  plan::MicrobatchGroups system0_microbatches;  // empty: the plan's (set by the collapse)
};

// Which reductions apply to a run (its options, a representative run, no trace).
[[nodiscard]] bool reduces_steps(const EngineRun& run);
[[nodiscard]] bool collapses_microbatches(const EngineRun& run);

// The run actually simulated for `run`, or nothing when no reduction applies.
[[nodiscard]] std::optional<EngineRun> reduced_run(const EngineRun& run);

// The result of the whole `run` from the result of reduced_run(run). When a check fails,
// turns that reduction off in `run.options` and returns nothing.
[[nodiscard]] std::optional<SimulationResult> extend_result(EngineRun& run,
                                                            SimulationResult reduced);

// Simulates `runs` with every reduction that applies: each round simulates the reduced runs
// (through `simulate`, results in order); a run whose check fails loses that reduction and
// goes to the next round (at most one per reduction, then it runs in full).
[[nodiscard]] std::vector<SimulationResult> simulate_reduced(
    const std::vector<EngineRun>& runs,
    const std::function<std::vector<SimulationResult>(const std::vector<EngineRun>&)>& simulate);

}  // namespace csx::engine
