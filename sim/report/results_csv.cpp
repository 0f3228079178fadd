// The candidates table's columns.
#include "report/results_csv.hpp"

#include <algorithm>

#include "search/time_to_train.hpp"

namespace csx::io {
namespace {

using Row = CandidateRow;
using Col = Schema<Row>::Column;

// A simulated quantity: null for a candidate not simulated.
Value timing(const Row& r, double v) {
  return r.candidate.simulated ? Value(v) : Value();
}
// A resource's busy seconds over the step time.
Value share(const Row& r, double busy_s) {
  return timing(r, busy_s / r.candidate.sim.step_time_s);
}
Col simulated(const char* name, const char* unit, double (*get)(const search::CandidateResult&)) {
  return {{name, unit, kReal}, [get](const Row& r) { return timing(r, get(r.candidate)); }};
}
Col busy_share(const char* name, double (*busy)(const search::CandidateResult&)) {
  return {{name, "fraction", kReal}, [busy](const Row& r) { return share(r, busy(r.candidate)); }};
}
Col memory(const char* name, double (*get)(const model::MemoryBreakdown&)) {
  return {{name, "bytes", kReal}, [get](const Row& r) { return Value(get(r.candidate.memory)); }};
}
// The input workers' columns: null unless the input was simulated (docs/model.md#input-pipeline).
Value input_value(const Row& r, double v) {
  return r.candidate.simulated && r.candidate.sim.input_busy_s > 0 ? Value(v) : Value();
}
double swarmx_busy(const search::CandidateResult& c) {
  double most = 0;
  for (const double b : c.sim.swarmx_level_busy_s) most = std::max(most, b);
  return most;
}
std::optional<search::TimeToTrain> ttt(const Row& r) {
  return search::time_to_train(r.context.training_steps, r.context.pass, r.candidate);
}

Schema<Row> make_schema() {
  using C = search::CandidateResult;
  return Schema<Row>({
      {{"model", "", kText}, [](const Row& r) { return Value(r.context.model); }},
      {{"platform", "", kText}, [](const Row& r) { return Value(r.context.platform); }},
      {{"overrides", "", kText}, [](const Row& r) { return Value(r.context.overrides); }},
      {{"mode", "", kText},
       [](const Row& r) { return Value(std::string(model::to_string(r.context.pass))); }},
      {{"num_csx", "systems", kInt}, [](const Row& r) { return Value(r.context.num_csx); }},
      {{"batch_size", "samples", kInt}, [](const Row& r) { return Value(r.context.batch_size); }},
      {{"per_system_batch_size", "samples", kInt},
       [](const Row& r) { return Value(r.context.per_system_batch_size); }},
      {{"seq_len", "tokens", kInt}, [](const Row& r) { return Value(r.context.seq_len); }},
      {{"tokens_per_step", "tokens", kInt},
       [](const Row& r) { return Value(r.context.batch_size * r.context.seq_len); }},
      {{"requested_micro_batch_size", "", kText},
       [](const Row& r) { return Value(r.context.requested_micro_batch_size); }},
      {{"micro_batch_size", "samples", kInt},
       [](const Row& r) { return Value(r.candidate.micro_batch_size); }},
      {{"num_microbatches", "microbatches", kInt},
       [](const Row& r) { return Value(r.candidate.num_microbatches); }},
      {{"fits", "", kBool}, [](const Row& r) { return Value(r.candidate.fits); }},
      {{"reason", "", kText}, [](const Row& r) { return Value(r.candidate.reason); }},
      {{"chosen", "", kBool}, [](const Row& r) { return Value(r.candidate.chosen); }},
      simulated("step_time_s", "s", [](const C& c) { return c.sim.step_time_s; }),
      simulated("samples_per_s", "samples/s", [](const C& c) { return c.samples_per_s; }),
      simulated("samples_per_s_low", "samples/s",
                [](const C& c) { return c.interval.samples_per_s_low; }),
      simulated("samples_per_s_high", "samples/s",
                [](const C& c) { return c.interval.samples_per_s_high; }),
      simulated("step_time_s_low", "s", [](const C& c) { return c.interval.step_time_s_low; }),
      simulated("step_time_s_high", "s", [](const C& c) { return c.interval.step_time_s_high; }),
      simulated("tokens_per_s", "tokens/s", [](const C& c) { return c.tokens_per_s; }),
      simulated("mfu", "fraction", [](const C& c) { return c.mfu; }),
      {{"bound", "", kText},
       [](const Row& r) { return r.candidate.simulated ? Value(r.candidate.sim.bound) : Value(); }},
      busy_share("compute_share", [](const C& c) { return c.sim.compute_time_s; }),
      busy_share("csx_io_share", [](const C& c) { return c.sim.csx_io_busy_s; }),
      busy_share("swarmx_share", swarmx_busy),
      busy_share("memoryx_link_share", [](const C& c) { return c.sim.memoryx_link_busy_s; }),
      busy_share("optimizer_share", [](const C& c) { return c.sim.optimizer_time_s; }),
      busy_share("step_overhead_share", [](const C& c) { return c.sim.step_overhead_s; }),
      {{"input_share", "fraction", kReal},
       [](const Row& r) {
         const auto& s = r.candidate.sim;
         return input_value(r, s.input_busy_s / s.step_time_s);
       }},
      simulated("compute_time_s", "s", [](const C& c) { return c.sim.compute_time_s; }),
      simulated("weight_stream_time_s", "s", [](const C& c) { return c.sim.weight_stream_time_s; }),
      simulated("exposed_stream_time_s", "s",
                [](const C& c) { return c.sim.exposed_stream_time_s; }),
      simulated("grad_reduce_time_s", "s", [](const C& c) { return c.sim.grad_reduce_time_s; }),
      simulated("optimizer_time_s", "s", [](const C& c) { return c.sim.optimizer_time_s; }),
      simulated("step_overhead_s", "s", [](const C& c) { return c.sim.step_overhead_s; }),
      {{"input_samples_per_s_per_csx", "samples/s", kReal},
       [](const Row& r) {
         return input_value(r, static_cast<double>(r.context.per_system_batch_size) /
                                   r.candidate.sim.input_busy_s);
       }},
      {{"input_wait_s", "s", kReal},
       [](const Row& r) { return input_value(r, r.candidate.sim.input_wait_s); }},
      memory("mem_activations_bytes",
             [](const model::MemoryBreakdown& m) { return m.activations_bytes; }),
      memory("mem_weight_buffers_bytes",
             [](const model::MemoryBreakdown& m) { return m.weight_buffers_bytes; }),
      memory("mem_gradients_bytes",
             [](const model::MemoryBreakdown& m) { return m.gradients_bytes; }),
      memory("mem_workspace_bytes",
             [](const model::MemoryBreakdown& m) { return m.workspace_bytes; }),
      memory("mem_total_bytes", [](const model::MemoryBreakdown& m) { return m.total_bytes; }),
      memory("mem_capacity_bytes",
             [](const model::MemoryBreakdown& m) { return m.capacity_bytes; }),
      {{"recompute_passes", "forward passes per block", kReal},
       [](const Row& r) {
         return r.candidate.fits ? Value(r.candidate.memory.recompute_passes) : Value();
       }},
      {{"activation_plan", "", kText},
       [](const Row& r) { return Value(r.candidate.memory.activation_plan); }},
      {{"steps", "steps", kInt},
       [](const Row& r) {
         const bool training = r.context.training_steps && r.context.pass == model::Pass::kTrain;
         return training ? Value(*r.context.training_steps) : Value();
       }},
      {{"time_to_train_s", "s", kReal},
       [](const Row& r) {
         const auto t = ttt(r);
         return t ? Value(t->seconds) : Value();
       }},
      {{"shard", "", kText}, [](const Row& r) { return Value(r.context.shard); }},
      {{"grid", "", kText}, [](const Row& r) { return Value(r.context.grid); }},
  });
}

}  // namespace

const Schema<CandidateRow>& candidate_schema() {
  static const Schema<CandidateRow> schema = make_schema();
  return schema;
}

const std::vector<ColumnInfo>& candidate_columns() {
  return candidate_schema().columns();
}

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& c : candidate_columns()) n.push_back(c.name);
    return n;
  }();
  return names;
}

std::size_t csv_column(const std::string& name) {
  return column_index(candidate_columns(), name);
}

std::string csv_header() {
  return io::csv_header(candidate_columns());
}

Record csv_record(const RowContext& ctx, const search::CandidateResult& c) {
  return candidate_schema().record({ctx, c});
}

std::string csv_row(const RowContext& ctx, const search::CandidateResult& c) {
  return csv_line(csv_record(ctx, c));
}

}  // namespace csx::io
