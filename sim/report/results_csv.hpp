// The candidates CSV: one row per evaluated candidate, stable column names with units.
// Numbers use a fixed, locale-independent format (fmt "{:.9g}"), so the same input gives the
// same bytes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "search/search.hpp"

namespace csx::io {

// What a row says besides the candidate itself.
struct RowContext {
  std::string model;
  std::string platform;
  model::Pass pass = model::Pass::kTrain;
  std::int64_t num_csx = 0;
  std::int64_t batch_size = 0;
  std::int64_t per_system_batch_size = 0;
  std::string requested_micro_batch_size;
  std::optional<std::int64_t> training_steps;  // for time_to_train_s (training rows only)
};

// `with_time_to_train` appends time_to_train_s (sweeps).
[[nodiscard]] std::vector<std::string> csv_columns(bool with_time_to_train);
[[nodiscard]] std::string csv_header(bool with_time_to_train);
[[nodiscard]] std::string csv_row(const RowContext& ctx, const search::CandidateResult& c,
                                  bool with_time_to_train);

// A number as the CSV writes it.
[[nodiscard]] std::string csv_number(double v);
// Quotes a field that holds a comma, a quote or a newline (RFC 4180).
[[nodiscard]] std::string csv_field(const std::string& s);

}  // namespace csx::io
