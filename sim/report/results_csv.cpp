// CSV rows for candidates.
#include "report/results_csv.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace csx::io {

std::vector<std::string> csv_columns(bool with_time_to_train) {
  std::vector<std::string> cols{"model",
                                "platform",
                                "mode",
                                "num_csx",
                                "batch_size",
                                "per_system_batch_size",
                                "requested_micro_batch_size",
                                "micro_batch_size",
                                "num_microbatches",
                                "fits",
                                "reason",
                                "chosen",
                                "step_time_s",
                                "samples_per_s",
                                "tokens_per_s",
                                "mfu",
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
                                "activation_plan"};
  if (with_time_to_train) cols.emplace_back("time_to_train_s");
  return cols;
}

std::string csv_header(bool with_time_to_train) {
  return fmt::format("{}\n", fmt::join(csv_columns(with_time_to_train), ","));
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

std::string csv_row(const RowContext& ctx, const search::CandidateResult& c,
                    bool with_time_to_train) {
  std::vector<std::string> f{csv_field(ctx.model),
                             csv_field(ctx.platform),
                             model::to_string(ctx.pass),
                             std::to_string(ctx.num_csx),
                             std::to_string(ctx.batch_size),
                             std::to_string(ctx.per_system_batch_size),
                             csv_field(ctx.requested_micro_batch_size),
                             std::to_string(c.micro_batch_size),
                             std::to_string(c.num_microbatches),
                             c.fits ? "true" : "false",
                             csv_field(c.reason),
                             c.chosen ? "true" : "false"};
  const auto timing = [&](double v) { return c.simulated ? csv_number(v) : std::string(); };
  f.push_back(timing(c.sim.step_time_s));
  f.push_back(timing(c.samples_per_s));
  f.push_back(timing(c.tokens_per_s));
  f.push_back(timing(c.mfu));
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
  f.push_back(csv_field(c.memory.activation_plan));
  if (with_time_to_train)
    f.push_back(c.simulated && ctx.training_steps && ctx.pass == model::Pass::kTrain
                    ? csv_number(static_cast<double>(*ctx.training_steps) * c.sim.step_time_s)
                    : std::string());
  return fmt::format("{}\n", fmt::join(f, ","));
}

}  // namespace csx::io
