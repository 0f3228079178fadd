// The table `validate --csv` writes: one row per measured run checked (docs/cli.md#csv), its
// columns in one schema (report/results_schema.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "report/results_schema.hpp"

namespace csx::io {

// One measured run against its simulation.
struct ValidationRow {
  std::string name;    // the reference entry's
  std::string group;   // its list's first word: current, input-bound, older
  std::string model;   // the model file
  std::string family;  // the model's family
  std::string platform;
  std::int64_t num_csx = 0;
  std::int64_t batch_size = 0;        // global, samples
  std::int64_t micro_batch_size = 0;  // the simulated choice, samples
  double measured_samples_per_s = 0;
  double simulated_samples_per_s = 0;
  double error_pct = 0;  // simulated over measured, minus 1, in percent
  std::string bound;     // the simulated step's bound
  std::string release;   // the software release of the measurement
  // An input-bound run simulated with its input workers at the platform's rate for its data
  // processor (docs/model.md#input-pipeline): that rate (samples/s) and its error (percent);
  // empty when not simulated so.
  std::optional<double> input_fed_samples_per_s, input_fed_error_pct;
};

[[nodiscard]] const Schema<ValidationRow>& validation_schema();

}  // namespace csx::io
