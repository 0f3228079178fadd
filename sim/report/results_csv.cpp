// CSV rows for candidates.
#include "report/results_csv.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <stdexcept>

#include "search/time_to_train.hpp"

namespace csx::io {

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> cols{"model",
                                             "platform",
                                             "overrides",
                                             "mode",
                                             "num_csx",
                                             "batch_size",
                                             "per_system_batch_size",
                                             "seq_len",
                                             "tokens_per_step",
                                             "requested_micro_batch_size",
                                             "micro_batch_size",
                                             "num_microbatches",
                                             "fits",
                                             "reason",
                                             "chosen",
                                             "step_time_s",
                                             "samples_per_s",
                                             "samples_per_s_low",
                                             "samples_per_s_high",
                                             "step_time_s_low",
                                             "step_time_s_high",
                                             "tokens_per_s",
                                             "mfu",
                                             "bound",
                                             "compute_share",
                                             "csx_io_share",
                                             "swarmx_share",
                                             "memoryx_link_share",
                                             "optimizer_share",
                                             "step_overhead_share",
                                             "compute_time_s",
                                             "weight_stream_time_s",
                                             "exposed_stream_time_s",
                                             "grad_reduce_time_s",
                                             "optimizer_time_s",
                                             "step_overhead_s",
                                             "mem_activations_bytes",
                                             "mem_weight_buffers_bytes",
                                             "mem_gradients_bytes",
                                             "mem_workspace_bytes",
                                             "mem_total_bytes",
                                             "mem_capacity_bytes",
                                             "recompute_passes",
                                             "activation_plan",
                                             "steps",
                                             "time_to_train_s",
                                             "shard",
                                             "grid"};
  return cols;
}

std::size_t csv_column(const std::string& name) {
  const auto& cols = csv_columns();
  const auto it = std::find(cols.begin(), cols.end(), name);
  if (it == cols.end()) throw std::out_of_range("no CSV column " + name);
  return static_cast<std::size_t>(it - cols.begin());
}

std::string csv_header() {
  return fmt::format("{}\n", fmt::join(csv_columns(), ","));
}

std::string csv_number(double v) {
  return fmt::format("{:.9g}", v);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::vector<std::string> csv_values(const RowContext& ctx, const search::CandidateResult& c) {
  std::vector<std::string> f{ctx.model,
                             ctx.platform,
                             ctx.overrides,
                             model::to_string(ctx.pass),
                             std::to_string(ctx.num_csx),
                             std::to_string(ctx.batch_size),
                             std::to_string(ctx.per_system_batch_size),
                             std::to_string(ctx.seq_len),
                             std::to_string(ctx.batch_size * ctx.seq_len),
                             ctx.requested_micro_batch_size,
                             std::to_string(c.micro_batch_size),
                             std::to_string(c.num_microbatches),
                             c.fits ? "true" : "false",
                             c.reason,
                             c.chosen ? "true" : "false"};
  const auto timing = [&](double v) { return c.simulated ? csv_number(v) : std::string(); };
  const auto share = [&](double busy_s) { return timing(busy_s / c.sim.step_time_s); };
  double swarmx = 0;
  for (const double b : c.sim.swarmx_level_busy_s) swarmx = std::max(swarmx, b);
  f.push_back(timing(c.sim.step_time_s));
  f.push_back(timing(c.samples_per_s));
  for (const double v : {c.interval.samples_per_s_low, c.interval.samples_per_s_high,
                         c.interval.step_time_s_low, c.interval.step_time_s_high})
    f.push_back(timing(v));
  f.push_back(timing(c.tokens_per_s));
  f.push_back(timing(c.mfu));
  f.push_back(c.simulated ? c.sim.bound : std::string());
  f.push_back(share(c.sim.compute_time_s));
  f.push_back(share(c.sim.csx_io_busy_s));
  f.push_back(share(swarmx));
  f.push_back(share(c.sim.memoryx_link_busy_s));
  f.push_back(share(c.sim.optimizer_time_s));
  f.push_back(share(c.sim.step_overhead_s));
  f.push_back(timing(c.sim.compute_time_s));
  f.push_back(timing(c.sim.weight_stream_time_s));
  f.push_back(timing(c.sim.exposed_stream_time_s));
  f.push_back(timing(c.sim.grad_reduce_time_s));
  f.push_back(timing(c.sim.optimizer_time_s));
  f.push_back(timing(c.sim.step_overhead_s));
  for (const double v :
       {c.memory.activations_bytes, c.memory.weight_buffers_bytes, c.memory.gradients_bytes,
        c.memory.workspace_bytes, c.memory.total_bytes, c.memory.capacity_bytes})
    f.push_back(csv_number(v));
  f.push_back(c.fits ? csv_number(c.memory.recompute_passes) : std::string());
  f.push_back(c.memory.activation_plan);
  const bool training = ctx.training_steps && ctx.pass == model::Pass::kTrain;
  f.push_back(training ? std::to_string(*ctx.training_steps) : std::string());
  const auto ttt = search::time_to_train(ctx.training_steps, ctx.pass, c);
  f.push_back(ttt ? csv_number(ttt->seconds) : std::string());
  f.push_back(ctx.shard);
  f.push_back(ctx.grid);
  return f;
}

std::string csv_row(const RowContext& ctx, const search::CandidateResult& c) {
  auto f = csv_values(ctx, c);
  for (auto& v : f) v = csv_field(v);
  return fmt::format("{}\n", fmt::join(f, ","));
}

}  // namespace csx::io
