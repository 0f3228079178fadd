// Tables printed by `csxsim run`.
#include "cli/run_report.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "app/amounts.hpp"
#include "app/results_output.hpp"
#include "model/compute_model.hpp"
#include "search/time_to_train.hpp"

namespace csx::cli {
namespace {

std::string gb(double bytes) {
  return fmt::format("{:.2f}", bytes / 1e9);
}

// What a candidate gains and loses against the chosen one: time, recompute, SIMD fill, and
// microbatches (each re-streams the weights).
std::string versus(const search::CandidateResult& row, const search::CandidateResult& chosen,
                   const app::Job& job) {
  if (row.chosen) return "";
  const double seq = static_cast<double>(job.scenario.model.seq_len);
  const double fill =
      model::simd_fill(job.platform, static_cast<double>(row.micro_batch_size) * seq);
  const double fill0 =
      model::simd_fill(job.platform, static_cast<double>(chosen.micro_batch_size) * seq);
  const auto dk = row.num_microbatches - chosen.num_microbatches;
  const auto z = [](double v, double unit) { return std::fabs(v) < unit / 2 ? 0.0 : v; };
  return fmt::format("step {:+.1f}%: recompute {:+.2f}, SIMD fill {:+.1f}%, {:+d} microbatch{}",
                     z(100 * (row.sim.step_time_s / chosen.sim.step_time_s - 1), 0.1),
                     z(row.memory.recompute_passes - chosen.memory.recompute_passes, 0.01),
                     z(100 * (fill / fill0 - 1), 0.1), dk, dk == 1 || dk == -1 ? "" : "es");
}

// What the interval's width comes from (model/prediction_interval.hpp).
std::string interval_basis(const app::Job& job) {
  const auto& b = job.interval;
  const double f = std::exp(model::interval_log_half_width(b));
  return fmt::format(
      "predicted / {:.3f} to x {:.3f} (prediction_log_sd {:g}; calibration runs: {} of family {}, "
      "{} on {})",
      f, f, b.log_sd, b.n_family, model::interval_family(job.scenario.model.name), b.n_platform,
      job.platform.name);
}

// A rate: two decimals, or three significant digits under 0.005/s (0.00 says nothing).
std::string rate_text(double v) {
  return v > 0 && v < 0.005 ? fmt::format("{:.3g}", v) : fmt::format("{:.2f}", v);
}

// The job's line: model, family, parameters, sequence length, cluster and overrides.
void print_job_header(std::FILE* out, const app::Job& job) {
  const auto& m = job.scenario.model;
  fmt::print(out, "csxsim run: {} ({}, {:.3g} parameters, {}) on {} x {}{}{}\n", m.label, m.name,
             static_cast<double>(job.costs.parameters()),
             m.transformer() ? fmt::format("seq_len {}", m.seq_len) : std::string("images"),
             job.num_csx, job.platform_label, job.scenario.compile_only ? ", compile-only" : "",
             job.overrides_text.empty() ? "" : fmt::format(" (overrides: {})", job.overrides_text));
}

// One pass: its candidates' table and the chosen one's breakdown.
void print_pass(std::FILE* out, const app::Job& job, const app::PassResult& r) {
  const auto& c = r.context;
  const auto& o = r.outcome;
  fmt::print(out,
             "\n{}: batch_size {} over num_csx {} -> per-system batch {}; "
             "micro_batch_size {}\n",
             model::to_string(c.pass), c.batch_size, c.num_csx, c.per_system_batch_size,
             c.requested_micro_batch_size);
  fmt::print(out, "{:>8} {:>6} {:>5} {:>12} {:>11} {:>12} {:>7} {:>10} {:>7}  {:<60} {}\n", "MBS",
             "k", "fits", "step_time_s", "samples/s", "tokens/s", "MFU",
             fmt::format("mem_GB/{}", gb(job.platform.usable_sram_bytes())), "recomp",
             o.chosen ? "vs chosen" : "", "bound");
  for (const auto& row : o.rows) {
    if (!row.simulated) {
      fmt::print(out, "{:>8} {:>6} {:>5} {:>12} {:>11} {:>12} {:>7} {:>10} {:>7}  {:<60} {}\n",
                 row.micro_batch_size, row.num_microbatches, "no", "-", "-", "-", "-",
                 gb(row.memory.total_bytes), "-", "", "does not fit");
      continue;
    }
    fmt::print(
        out, "{:>8} {:>6} {:>5} {:>12.4f} {:>11} {:>12.0f} {:>6.1f}% {:>10} {:>7.2f}  {:<60} {}\n",
        row.micro_batch_size, row.num_microbatches, "yes", row.sim.step_time_s,
        rate_text(row.samples_per_s), row.tokens_per_s, 100 * row.mfu, gb(row.memory.total_bytes),
        row.memory.recompute_passes, row.chosen ? "<- chosen" : versus(row, o.rows[*o.chosen], job),
        row.sim.bound);
  }
  if (!o.chosen) {
    fmt::print(out, "nothing fits: {}\n", o.rows.empty() ? "" : o.rows.back().reason);
    return;
  }
  std::uint64_t activities = 0;
  for (const auto& row : o.rows) activities += row.sim.activities;
  fmt::print(out, "search: {} simulation{}, {} simulated activities\n", o.simulations,
             o.simulations == 1 ? "" : "s", activities);
  const auto& best = o.rows[*o.chosen];
  fmt::print(out, "{}\n", o.decision);
  const auto& iv = best.interval;
  fmt::print(out,
             "chosen: micro_batch_size {} ({} microbatch{}): step {:.4f} s, {} samples/s "
             "(80 % interval {}-{}), {:.0f} tokens/s, MFU {:.1f}%, bound: {}\n",
             best.micro_batch_size, best.num_microbatches, best.num_microbatches == 1 ? "" : "es",
             best.sim.step_time_s, rate_text(best.samples_per_s), rate_text(iv.samples_per_s_low),
             rate_text(iv.samples_per_s_high), best.tokens_per_s, 100 * best.mfu, best.sim.bound);
  const auto& pass = *std::find_if(job.passes.begin(), job.passes.end(),
                                   [&](const auto& p) { return p.pass == c.pass; });
  const double g = model::input_rate_factor(pass.input_log_sd);
  fmt::print(out, "  80 % interval: {}{}\n", interval_basis(job),
             pass.input_samples_per_s <= 0 ? ""
             : pass.input_log_sd > 0
                 ? fmt::format("; the input rate / {:.3f} to x {:.3f} ({})", g, g,
                               job.platform.origin("input_workers.input_rate_log_sd"))
                 : "; the input rate is taken as exact: only the compute step varies");
  fmt::print(out, "  busy share of the step: {}\n", app::busy_shares(best.sim));
  fmt::print(out,
             "  step breakdown: compute {:.4f} s, weight streaming {:.4f} s (exposed {:.4f} s), "
             "gradient reduce {:.4f} s, optimizer {:.4f} s, step overhead {:.4f} s\n",
             best.sim.compute_time_s, best.sim.weight_stream_time_s, best.sim.exposed_stream_time_s,
             best.sim.grad_reduce_time_s, best.sim.optimizer_time_s, best.sim.step_overhead_s);
  if (best.sim.input_busy_s > 0) {
    const auto& sc = job.scenario;
    const auto processes = app::input_processes_per_worker(sc, c.pass);
    fmt::print(out,
               "  input: {:g} samples/s per process x {} process{} x {} worker{} per CS-X = {:g} "
               "samples/s ({}): {:.4f} s per step, {:.4f} s waited\n",
               pass.input_samples_per_s, processes, processes == 1 ? "" : "es",
               sc.input_workers_per_csx, sc.input_workers_per_csx == 1 ? "" : "s",
               app::input_samples_per_csx(sc, pass), pass.input_where, best.sim.input_busy_s,
               best.sim.input_wait_s);
    // What would feed the compute step: the step without its wait, the workers going on
    // during the fixed cost (docs/model.md#input-pipeline).
    const double compute_s = best.sim.step_time_s - best.sim.input_wait_s;
    if (best.sim.bound == "input" && compute_s > 0) {
      const double needed = static_cast<double>(c.per_system_batch_size) / compute_s;
      const double per_worker =
          pass.input_samples_per_s * static_cast<double>(sc.input_workers_per_csx);
      fmt::print(out,
                 "  to keep up with the compute step ({:.4f} s) the input needs {:.0f} samples/s "
                 "per CS-X: {:.0f} dataloader processes a worker (num_workers) at this rate "
                 "(now {}), more num_workers_per_csx, or a faster data processor\n",
                 compute_s, needed, std::ceil(needed / per_worker), processes);
    }
  } else {
    const auto& processor = app::data_processor(job.scenario, c.pass);
    if (!processor.empty())
      fmt::print(out, "  input: not simulated ({}; give --input-rate)\n",
                 processor == io::kImageNetProcessor
                     ? fmt::format("no rate for {}: {} is 0", processor,
                                   job.platform.origin("input_workers.imagenet1k_samples_per_s"))
                     : fmt::format("no measured rate for data_processor {}", processor));
  }
  fmt::print(out, "  activations: {} ({:.2f} forward passes recomputed per block)\n",
             best.memory.activation_plan, best.memory.recompute_passes);
  const auto& m = best.memory;
  fmt::print(out,
             "  memory: {} of {} GB usable SRAM (activations {}, weight buffers {}, gradients {}, "
             "workspace {}; headroom {} GB)\n",
             gb(m.total_bytes), gb(m.capacity_bytes), gb(m.activations_bytes),
             gb(m.weight_buffers_bytes), gb(m.gradients_bytes), gb(m.workspace_bytes),
             gb(std::max(0.0, m.headroom_bytes)));
  if (const auto ttt = search::time_to_train(c.training_steps, c.pass, best))
    fmt::print(out, "  time to train: {} steps x {:.4f} s = {} (80 % interval {})\n",
               *c.training_steps, best.sim.step_time_s, app::human_duration(ttt->seconds),
               app::human_duration_range(ttt->low_s, ttt->high_s, ttt->seconds));
}

}  // namespace

void print_run(std::FILE* out, const app::RunResult& run) {
  print_job_header(out, run.job);
  for (const auto& r : run.results) print_pass(out, run.job, r);
}

}  // namespace csx::cli
