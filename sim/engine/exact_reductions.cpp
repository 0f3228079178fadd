// Reduced runs and the extension of their results (see the header for why they are exact).
#include "engine/exact_reductions.hpp"

#include <algorithm>
#include <cmath>

namespace csx::engine {
namespace {

bool same(double a, double b) {
  return std::fabs(a - b) <= kPeriodTolerance * std::fabs(b);
}

plan::MicrobatchGroups groups_of(const SimulationInput& input) {
  return input.plan.microbatch_groups(input.plan.split.per_system_batch_size);
}

// Extends the collapsed microbatch groups in place: in each, the last three kept microbatches
// must last the same (one period); the count - kept others then each add that period, their
// compute and their waits. False when the period has not settled. A microbatch's duration
// depends only on what came before it, so the last kept one lasts as it would in the full run.
bool extend_microbatches(const SimulationInput& input, SimulationResult& r) {
  double add_time = 0, add_compute = 0, add_wait = 0;
  std::size_t first = 0;
  const auto& start = r.microbatch_start_s;
  const auto& end = r.microbatch_end_s;
  for (const auto& [size, count] : groups_of(input)) {
    const auto kept = static_cast<std::size_t>(std::min(count, kKeptPerGroup));
    if (count > kKeptPerGroup) {
      if (start.size() < first + kept || end.size() < first + kept) return false;
      const std::size_t a = first + kept - 3;  // microbatches a, a+1, a+2
      const double d1 = end[a] - start[a], d2 = end[a + 1] - start[a + 1],
                   d3 = end[a + 2] - start[a + 2];
      if (!same(d1, d3) || !same(d2, d3)) return false;
      const double extra = static_cast<double>(count - kKeptPerGroup);
      add_time += extra * d3;
      add_compute += extra * r.microbatch_compute_s[a + 2];
      add_wait += extra * r.microbatch_wait_s[a + 2];
    }
    first += kept;
  }
  r.step_time_s += add_time;
  for (std::size_t s = 0; s < r.step_end_s.size(); ++s)
    r.step_end_s[s] += static_cast<double>(s + 1) * add_time;
  r.end_time_s = r.step_end_s.back();
  r.compute_time_s += add_compute;
  r.exposed_stream_time_s += add_wait;
  r.microbatch_start_s.clear();
  r.microbatch_end_s.clear();
  r.microbatch_wait_s.clear();
  r.microbatch_compute_s.clear();
  return true;
}

}  // namespace

bool reduces_steps(const EngineRun& run) {
  const auto& o = run.options;
  return o.reduce_steps && o.representative && !o.record_trace &&
         run.input.pass == model::Pass::kTrain && run.input.simulated_steps > 1 &&
         !(run.input.input_samples_per_s > 0);
}

bool collapses_microbatches(const EngineRun& run) {
  const auto& o = run.options;
  if (!o.collapse_microbatches || !o.representative || o.record_trace ||
      !run.system0_microbatches.empty() || run.input.input_samples_per_s > 0)
    return false;
  for (const auto& [size, count] : groups_of(run.input))
    if (count > kKeptPerGroup) return true;
  return false;
}

std::optional<EngineRun> reduced_run(const EngineRun& run) {
  const bool steps = reduces_steps(run), microbatches = collapses_microbatches(run);
  if (!steps && !microbatches) return std::nullopt;
  EngineRun reduced = run;
  if (steps) reduced.input.simulated_steps = 1;
  if (microbatches)
    for (const auto& [size, count] : groups_of(run.input))
      reduced.system0_microbatches.emplace_back(size, std::min(count, kKeptPerGroup));
  return reduced;
}

std::optional<SimulationResult> extend_result(EngineRun& run, SimulationResult r) {
  const bool steps = reduces_steps(run), microbatches = collapses_microbatches(run);
  const SimulationInput& input = run.input;
  // The next step starts like the first one when system 0's first overhead ended before its
  // first layer's weights arrived (it waited for them), or when there is no overhead: from
  // that arrival on, both steps are the same.
  if (steps && input.platform.microbatch_overhead_s > 0 && !(r.first_weights_wait_s > 0)) {
    run.options.reduce_steps = false;
    return std::nullopt;
  }
  // In a later step, system 0 starts waiting for its first weights when it ended the step
  // before, not at the step's start: that wait is longer by the gap to the step's end.
  double boundary_wait = 0;
  if (steps) {
    if (r.microbatch_end_s.empty() || r.step_end_s.size() != 1) {
      run.options.reduce_steps = false;
      return std::nullopt;
    }
    boundary_wait = r.step_end_s.front() - r.microbatch_end_s.back();
  }
  if (microbatches && !extend_microbatches(input, r)) {
    run.options.collapse_microbatches = false;
    return std::nullopt;
  }
  if (steps) {
    const double step = r.step_end_s.back();
    r.step_end_s.clear();
    for (std::int64_t s = 1; s <= input.simulated_steps; ++s)
      r.step_end_s.push_back(static_cast<double>(s) * step);
    r.step_time_s = step;
    r.end_time_s = r.step_end_s.back();
    r.exposed_stream_time_s += boundary_wait;
    if (!r.microbatch_wait_s.empty()) {
      // Per-microbatch times of the last step.
      const double shift = r.end_time_s - step;
      r.microbatch_wait_s.front() += boundary_wait;
      for (auto& t : r.microbatch_start_s) t += shift;
      for (auto& t : r.microbatch_end_s) t += shift;
      r.microbatch_start_s.front() -= boundary_wait;
    }
  }
  return r;
}

std::vector<SimulationResult> simulate_reduced(
    const std::vector<EngineRun>& runs,
    const std::function<std::vector<SimulationResult>(const std::vector<EngineRun>&)>& simulate) {
  std::vector<EngineRun> current = runs;
  std::vector<SimulationResult> results(runs.size());
  std::vector<std::size_t> pending(runs.size());
  for (std::size_t i = 0; i < pending.size(); ++i) pending[i] = i;
  while (!pending.empty()) {
    std::vector<EngineRun> round;
    std::vector<bool> reduced;
    for (const auto i : pending) {
      auto r = reduced_run(current[i]);
      reduced.push_back(r.has_value());
      round.push_back(r ? std::move(*r) : current[i]);
    }
    auto out = simulate(round);
    std::vector<std::size_t> again;
    for (std::size_t n = 0; n < pending.size(); ++n) {
      const auto i = pending[n];
      if (!reduced[n]) {
        results[i] = std::move(out[n]);
      } else if (auto full = extend_result(current[i], std::move(out[n]))) {
        results[i] = std::move(*full);
      } else {
        again.push_back(i);
      }
    }
    pending = std::move(again);
  }
  return results;
}

}  // namespace csx::engine
