// The validate table's columns.
#include "report/validation_table.hpp"

namespace csx::io {

const Schema<ValidationRow>& validation_schema() {
  using R = ValidationRow;
  static const Schema<R> schema({
      {{"name", "", kText}, [](const R& r) { return Value(r.name); }},
      {{"group", "", kText}, [](const R& r) { return Value(r.group); }},
      {{"model", "", kText}, [](const R& r) { return Value(r.model); }},
      {{"family", "", kText}, [](const R& r) { return Value(r.family); }},
      {{"platform", "", kText}, [](const R& r) { return Value(r.platform); }},
      {{"num_csx", "systems", kInt}, [](const R& r) { return Value(r.num_csx); }},
      {{"batch_size", "samples", kInt}, [](const R& r) { return Value(r.batch_size); }},
      {{"micro_batch_size", "samples", kInt}, [](const R& r) { return Value(r.micro_batch_size); }},
      {{"measured_samples_per_s", "samples/s", kReal},
       [](const R& r) { return Value(r.measured_samples_per_s); }},
      {{"simulated_samples_per_s", "samples/s", kReal},
       [](const R& r) { return Value(r.simulated_samples_per_s); }},
      {{"error_pct", "%", kReal}, [](const R& r) { return Value(r.error_pct); }},
      {{"bound", "", kText}, [](const R& r) { return Value(r.bound); }},
      {{"release", "", kText}, [](const R& r) { return Value(r.release); }},
      {{"input_fed_samples_per_s", "samples/s", kReal},
       [](const R& r) {
         return r.input_fed_samples_per_s ? Value(*r.input_fed_samples_per_s) : Value();
       }},
      {{"input_fed_error_pct", "%", kReal},
       [](const R& r) { return r.input_fed_error_pct ? Value(*r.input_fed_error_pct) : Value(); }},
  });
  return schema;
}

}  // namespace csx::io
