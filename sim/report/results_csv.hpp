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
  std::string platform;   // the platform's name, "+variant" when a named override set applies
  std::string overrides;  // the platform overrides applied, "KEY=VALUE;..." (empty: none)
  model::Pass pass = model::Pass::kTrain;
  std::int64_t num_csx = 0;
  std::int64_t batch_size = 0;
  std::int64_t per_system_batch_size = 0;
  std::int64_t seq_len = 0;  // tokens per sample (0: the model counts no tokens)
  std::string requested_micro_batch_size;
  std::optional<std::int64_t> training_steps;  // for time_to_train_s (training rows only)
  std::string shard;  // "I/N" in a sharded sweep's rows (merge checks none is missing)
  std::string grid;   // a sharded sweep's grid identity (8 hex digits), empty otherwise
};

// run, sweep and plan write the same columns (docs/cli.md#csv).
[[nodiscard]] const std::vector<std::string>& csv_columns();
[[nodiscard]] std::string csv_header();
// One row's values, one per column, unquoted (csv_row quotes them: csv_field).
[[nodiscard]] std::vector<std::string> csv_values(const RowContext& ctx,
                                                  const search::CandidateResult& c);
[[nodiscard]] std::string csv_row(const RowContext& ctx, const search::CandidateResult& c);
// Index of a column of csv_columns(); throws std::out_of_range for an unknown name.
[[nodiscard]] std::size_t csv_column(const std::string& name);

// A number as the CSV writes it.
[[nodiscard]] std::string csv_number(double v);
// Quotes a field that holds a comma, a quote or a newline (RFC 4180).
[[nodiscard]] std::string csv_field(const std::string& s);

}  // namespace csx::io
