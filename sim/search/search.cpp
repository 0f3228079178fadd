// Candidate evaluation and the choice rules of none/integer, explore and auto.
#include "search/search.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <numeric>

#include "batching/choice_rules.hpp"
#include "batching/supported_sizes.hpp"
#include "common/errors.hpp"
#include "plan/step_bound.hpp"

namespace csx::search {
namespace {

// The candidate's row before simulation: memory, fit, and the plan to simulate if it fits.
CandidateResult prepare(const SearchRequest& req, std::int64_t mbs) {
  CandidateResult c;
  c.micro_batch_size = mbs;
  c.num_microbatches = batching::num_microbatches(req.split.per_system_batch_size, mbs);
  c.memory = model::on_chip_memory(req.costs, req.platform, mbs, req.pass);
  c.fits = c.memory.fits;
  c.reason = c.memory.reason;
  return c;
}

plan::SimulationInput plan_input(const SearchRequest& req, const CandidateResult& c) {
  plan::SimulationInput in;
  in.recompute_passes = c.memory.recompute_passes;
  in.costs = req.costs;
  in.platform = req.platform;
  in.plan = batching::make_plan(req.split, c.micro_batch_size);
  in.pass = req.pass;
  in.seq_len = req.seq_len;
  in.simulated_steps = req.simulated_steps;
  in.memory = c.memory;
  in.input_samples_per_s = req.input_samples_per_s;
  return in;
}

void record(const SearchRequest& req, CandidateResult& c, plan::SimulationResult sim) {
  c.sim = std::move(sim);
  c.simulated = true;
  const double B = static_cast<double>(req.split.batch_size);
  c.samples_per_s = B / c.sim.step_time_s;
  c.tokens_per_s = c.samples_per_s * static_cast<double>(req.seq_len);
  c.interval = req.input_samples_per_s > 0
                   ? model::input_fed_interval(c.sim.step_time_s, c.samples_per_s,
                                               c.sim.input_busy_s, c.sim.input_wait_s, req.interval)
                   : model::prediction_interval(c.sim.step_time_s, c.samples_per_s, req.interval);
  c.mfu = model_flops_per_step(req.costs, req.pass, req.split.batch_size) /
          (c.sim.step_time_s * static_cast<double>(req.split.num_csx) * req.platform.peak_flops);
}

// At least this many events in the chosen candidate's trace (engine/trace_recorder.hpp): in each
// simulated step, for each layer pass of each microbatch, a kernel event and its SRAM counter
// on each traced system (all but one microbatch per system beyond the first, for an uneven
// split), and on system 0's path the layer's weight transfer with its two bandwidth counters;
// every other event (gradients, updates, steps) comes on top.
std::int64_t least_trace_events(const SearchRequest& req, const CandidateResult& c) {
  std::int64_t passes = 0;
  for (const auto& L : req.costs.layers)
    passes += 1 + (req.pass == model::Pass::kTrain && L.backward_factor > 0 ? 1 : 0);
  const std::int64_t systems = std::max<std::int64_t>(1, req.traced_systems);
  const double k = static_cast<double>(c.num_microbatches);
  const double microbatches = k + static_cast<double>(systems - 1) * std::max(0.0, k - 1);
  const double events = static_cast<double>(req.simulated_steps) * static_cast<double>(passes) *
                        (2.0 * microbatches + 3.0 * k);
  return events > 9e18 ? std::int64_t{9'000'000'000'000'000'000}
                       : static_cast<std::int64_t>(events);
}

// Simulates inputs[i] for each i of `which` in one batch and records each into its row,
// rows[input_rows[i]].
void simulate_rows(const SearchRequest& req, std::vector<CandidateResult>& rows,
                   const std::vector<plan::SimulationInput>& inputs,
                   const std::vector<std::size_t>& input_rows,
                   const std::vector<std::size_t>& which, const Simulator& simulate) {
  if (which.empty()) return;
  std::vector<plan::SimulationInput> batch;
  for (const auto i : which) batch.push_back(inputs[i]);
  auto sims = simulate(batch, false);
  for (std::size_t n = 0; n < which.size(); ++n)
    record(req, rows[input_rows[which[n]]], std::move(sims[n]));
}

// SearchRequest::chosen_only. First the per-system batch (under auto, when it fits) and the
// candidate of least lower bound; then every other candidate whose lower bound is not above the
// step that decides: the fastest so far, or the one auto needs to beat to split the batch.
// Simulated rows are recorded; returns how many were simulated.
int simulate_decisive(const SearchRequest& req, std::vector<CandidateResult>& rows,
                      const std::vector<plan::SimulationInput>& inputs,
                      const std::vector<std::size_t>& input_rows, const Simulator& simulate) {
  // Well above the engine's rounding (1e-12) and the choice's tie (1e-9): a candidate left out
  // is slower than the decisive step by more than a tie.
  constexpr double kMargin = 1e-6;
  const std::int64_t P = req.split.per_system_batch_size;
  const bool keeps_p = std::holds_alternative<batching::MbsAuto>(req.resolution.requested) &&
                       rows[input_rows.front()].micro_batch_size == P;
  std::vector<double> lower;
  for (const auto& in : inputs) lower.push_back(plan::step_time_lower_bound_s(in));
  const auto least = static_cast<std::size_t>(
      std::min_element(lower.begin() + (keeps_p ? 1 : 0), lower.end()) - lower.begin());
  std::vector<std::size_t> first;
  if (keeps_p) first.push_back(0);
  first.push_back(least);
  simulate_rows(req, rows, inputs, input_rows, first, simulate);
  double decisive = rows[input_rows[least]].sim.step_time_s;
  if (keeps_p)  // auto_min_speedup >= 0, so this is at most P's own step
    decisive =
        std::min(decisive, rows[input_rows.front()].sim.step_time_s / (1 + req.auto_min_speedup));
  std::vector<std::size_t> rest;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (std::find(first.begin(), first.end(), i) == first.end() &&
        lower[i] <= decisive * (1 + kMargin))
      rest.push_back(i);
  simulate_rows(req, rows, inputs, input_rows, rest, simulate);
  return static_cast<int>(first.size() + rest.size());
}

}  // namespace

double model_flops_per_step(const model::ModelCosts& costs, model::Pass pass,
                            std::int64_t batch_size) {
  const double per_sample = pass == model::Pass::kTrain ? costs.train_flops_per_sample(false)
                                                        : costs.forward_flops_per_sample();
  return per_sample * static_cast<double>(batch_size);
}

std::vector<std::int64_t> candidate_sizes(const SearchRequest& req) {
  std::vector<std::int64_t> candidates = req.resolution.candidates;
  const std::int64_t P = req.split.per_system_batch_size;
  if (std::holds_alternative<batching::MbsAuto>(req.resolution.requested)) {
    const bool p_fits = model::on_chip_memory(req.costs, req.platform, P, req.pass).fits;
    const auto extra = batching::auto_extra_candidate(
        P, p_fits, req.traits.batch_norm,
        model::max_fitting_micro_batch_size(req.costs, req.platform, req.pass));
    if (extra && std::find(candidates.begin(), candidates.end(), *extra) == candidates.end()) {
      candidates.push_back(*extra);
      std::sort(candidates.begin(), candidates.end(), std::greater<>());
    }
  }
  return candidates;
}

SearchOutcome run_search(const SearchRequest& req, const Simulator& simulate) {
  SearchOutcome out;
  const auto mx = model::memoryx_check(req.costs, req.platform);
  const std::vector<std::int64_t> candidates = candidate_sizes(req);
  std::vector<plan::SimulationInput> inputs;
  std::vector<std::size_t> simulated_rows;
  for (const auto mbs : candidates) {
    out.rows.push_back(prepare(req, mbs));
    if (!mx.fits) {  // no candidate runs when MemoryX cannot hold the model
      auto& row = out.rows.back();
      row.reason = row.fits ? mx.reason : fmt::format("{}; and on chip: {}", mx.reason, row.reason);
      row.fits = false;
    }
    if (!out.rows.back().fits) continue;
    inputs.push_back(plan_input(req, out.rows.back()));
    simulated_rows.push_back(out.rows.size() - 1);
  }
  if (req.chosen_only && req.input_samples_per_s <= 0 && inputs.size() > 2) {
    out.simulations = simulate_decisive(req, out.rows, inputs, simulated_rows, simulate);
  } else {
    std::vector<std::size_t> all(inputs.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    simulate_rows(req, out.rows, inputs, simulated_rows, all, simulate);
    out.simulations = static_cast<int>(simulated_rows.size());
  }

  // The compiler picks the MBS without seeing the input pipeline: with the input simulated, the
  // choice takes each candidate's step without it (docs/model.md#input-pipeline).
  std::vector<double> choice_step_s;
  for (const auto& r : out.rows) choice_step_s.push_back(r.sim.step_time_s);
  const bool input = req.input_samples_per_s > 0 && !inputs.empty();
  if (input) {
    for (auto& in : inputs) in.input_samples_per_s = 0;
    const auto compute_side = simulate(inputs, false);
    for (std::size_t i = 0; i < simulated_rows.size(); ++i)
      choice_step_s[simulated_rows[i]] = compute_side[i].step_time_s;
    out.simulations += static_cast<int>(simulated_rows.size());
  }
  std::vector<batching::Evaluated> evaluated;
  for (std::size_t i = 0; i < out.rows.size(); ++i)
    evaluated.push_back({out.rows[i].micro_batch_size, out.rows[i].simulated, choice_step_s[i]});
  const auto choice = batching::choose(req.resolution.requested, req.split.per_system_batch_size,
                                       evaluated, req.auto_min_speedup);
  out.chosen = choice.chosen;
  out.decision = choice.decision;
  if (input)
    out.decision +=
        "; compared on each candidate's step without the input, as the compiler chooses (the "
        "table's step_time_s includes the input)";
  if (!out.chosen) return out;
  auto& chosen = out.rows[*out.chosen];
  chosen.chosen = true;
  if (req.record_trace) {
    // A bound that is already too large refuses the trace before minutes of simulation.
    const auto least = least_trace_events(req, chosen);
    if (req.trace_max_events > 0 && least > req.trace_max_events) {
      out.trace_events_at_least = least;
      return out;
    }
    // The chosen row comes from the simulation that records its timeline.
    record(req, chosen, std::move(simulate({plan_input(req, chosen)}, true).front()));
  }
  return out;
}

}  // namespace csx::search
