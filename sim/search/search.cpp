// Candidate evaluation and the choice rules of none/integer, explore and auto.
#include "search/search.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "batching/supported_sizes.hpp"
#include "common/errors.hpp"

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

engine::SimulationInput plan_input(const SearchRequest& req, std::int64_t mbs,
                                   double recompute_passes) {
  engine::SimulationInput in;
  in.recompute_passes = recompute_passes;
  in.costs = req.costs;
  in.platform = req.platform;
  in.plan = batching::make_plan(req.split, mbs);
  in.pass = req.pass;
  in.seq_len = req.seq_len;
  in.simulated_steps = req.simulated_steps;
  return in;
}

void record(const SearchRequest& req, CandidateResult& c, engine::SimulationResult sim) {
  c.sim = std::move(sim);
  c.simulated = true;
  // The training step's fixed cost (README, "Compute model") is a barrier nothing overlaps:
  // it adds to the simulated step.
  if (req.pass == model::Pass::kTrain) {
    c.sim.step_overhead_s = req.platform.step_overhead_s;
    c.sim.step_time_s += c.sim.step_overhead_s;
  }
  const double B = static_cast<double>(req.split.batch_size);
  c.samples_per_s = B / c.sim.step_time_s;
  c.tokens_per_s = c.samples_per_s * static_cast<double>(req.seq_len);
  c.mfu = model_flops_per_step(req.costs, req.pass, req.split.batch_size) /
          (c.sim.step_time_s * static_cast<double>(req.split.num_csx) * req.platform.peak_flops);
}

// Fastest fitting row; ties go to the larger MBS (fewer microbatches).
std::optional<std::size_t> fastest(const std::vector<CandidateResult>& rows) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].simulated && (!best || rows[i].sim.step_time_s < rows[*best].sim.step_time_s))
      best = i;
  return best;
}

}  // namespace

double model_flops_per_step(const model::ModelCosts& costs, model::Pass pass,
                            std::int64_t batch_size) {
  const double per_sample = pass == model::Pass::kTrain ? costs.train_flops_per_sample(false)
                                                        : costs.forward_flops_per_sample();
  return per_sample * static_cast<double>(batch_size);
}

SearchOutcome run_search(const SearchRequest& req, const Simulator& simulate) {
  SearchOutcome out;
  out.resolution = batching::resolve(req.setting, req.split, req.traits, req.compile_only);
  const auto mx = model::memoryx_check(req.costs, req.platform);
  if (!mx.fits) throw InfeasibleError(mx.reason);

  std::vector<std::int64_t> candidates = out.resolution.candidates;
  const std::int64_t P = req.split.per_system_batch_size;
  const bool is_auto = std::holds_alternative<batching::MbsAuto>(req.setting);
  // P does not fit (and microbatching is allowed, which batch norm forbids).
  if (is_auto && !req.traits.batch_norm &&
      !model::on_chip_memory(req.costs, req.platform, P, req.pass).fits) {
    // Make sure the largest fitting supported size is among the candidates.
    const auto max_fit = model::max_fitting_micro_batch_size(req.costs, req.platform, req.pass);
    if (max_fit >= 1) {
      const auto v = batching::supported_floor(P, std::min(max_fit, P));
      if (std::find(candidates.begin(), candidates.end(), v) == candidates.end())
        candidates.push_back(v);
    }
    std::sort(candidates.begin(), candidates.end(), std::greater<>());
  }
  std::vector<engine::SimulationInput> inputs;
  std::vector<std::size_t> simulated_rows;
  for (const auto mbs : candidates) {
    out.rows.push_back(prepare(req, mbs));
    if (!out.rows.back().fits) continue;
    inputs.push_back(plan_input(req, mbs, out.rows.back().memory.recompute_passes));
    simulated_rows.push_back(out.rows.size() - 1);
  }
  auto sims = inputs.empty() ? std::vector<engine::SimulationResult>{} : simulate(inputs);
  for (std::size_t i = 0; i < simulated_rows.size(); ++i)
    record(req, out.rows[simulated_rows[i]], std::move(sims[i]));
  out.simulations = static_cast<int>(simulated_rows.size());

  const auto best = fastest(out.rows);
  if (!best) {
    out.decision = "no candidate fits in on-chip memory";
    return out;
  }
  out.chosen = best;
  if (is_auto && out.rows.front().micro_batch_size == P && out.rows.front().simulated) {
    const auto& keep = out.rows.front();
    const auto& other = out.rows[*best];
    const double gain = other.samples_per_s / keep.samples_per_s - 1;
    if (*best == 0 || gain <= req.auto_min_speedup) {
      out.chosen = 0;
      out.decision = *best == 0
                         ? fmt::format("auto kept {}: it is the fastest candidate", P)
                         : fmt::format(
                               "auto kept {}: no benefit from gradient accumulation expected "
                               "(best other candidate {} is {:.1f}% faster, threshold {:.0f}%)",
                               P, other.micro_batch_size, 100 * gain, 100 * req.auto_min_speedup);
    } else {
      out.decision = fmt::format("auto chose {}: {:.1f}% faster than {} (threshold {:.0f}%)",
                                 other.micro_batch_size, 100 * gain, P, 100 * req.auto_min_speedup);
    }
  } else if (is_auto) {
    out.decision = fmt::format(
        "auto chose {}: per-system batch {} does not fit on-chip memory; "
        "fastest fitting candidate",
        out.rows[*best].micro_batch_size, P);
  } else if (std::holds_alternative<batching::MbsExplore>(req.setting)) {
    out.decision = fmt::format("explore chose {}: fastest of {} fitting candidates",
                               out.rows[*best].micro_batch_size, out.simulations);
  } else {
    out.decision = fmt::format("micro_batch_size {}", out.rows[*best].micro_batch_size);
  }
  out.rows[*out.chosen].chosen = true;
  return out;
}

}  // namespace csx::search
