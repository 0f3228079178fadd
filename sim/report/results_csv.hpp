// The candidates table run, sweep and plan write: one row per evaluated candidate, its columns
// (name, unit, type, getter) in one schema (report/results_schema.hpp; docs/cli.md#csv).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/results_schema.hpp"
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
  std::string grid;   // a sweep's grid identity (app::grid_identity), empty for run and plan
};

// One row of the table: a candidate and what the row says besides it.
struct CandidateRow {
  const RowContext& context;
  const search::CandidateResult& candidate;
};

// The table's schema: 51 columns; a candidate not simulated (it does not fit) has its timings
// null.
[[nodiscard]] const Schema<CandidateRow>& candidate_schema();
[[nodiscard]] const std::vector<ColumnInfo>& candidate_columns();
// The column names, in order.
[[nodiscard]] const std::vector<std::string>& csv_columns();
[[nodiscard]] std::string csv_header();
// One row's values (candidate_schema().record) and its CSV line.
[[nodiscard]] Record csv_record(const RowContext& ctx, const search::CandidateResult& c);
[[nodiscard]] std::string csv_row(const RowContext& ctx, const search::CandidateResult& c);
// Index of a column of csv_columns(); throws std::out_of_range for an unknown name.
[[nodiscard]] std::size_t csv_column(const std::string& name);

}  // namespace csx::io
