// The results schemas: units and types per column, values as CSV fields, JSON and back.
#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "report/results_csv.hpp"
#include "report/results_schema.hpp"
#include "report/validation_table.hpp"

namespace csx::io {
namespace {

const ColumnInfo& candidate(const std::string& name) {
  return candidate_columns().at(csv_column(name));
}
const ColumnInfo& validation(const std::string& name) {
  const auto& cols = validation_schema().columns();
  return cols.at(column_index(cols, name));
}

TEST(ResultsSchema, UnitsOfTheColumns) {
  EXPECT_EQ(candidate("step_time_s").unit, "s");
  EXPECT_EQ(candidate("time_to_train_s").unit, "s");
  EXPECT_EQ(candidate("mem_total_bytes").unit, "bytes");
  EXPECT_EQ(candidate("samples_per_s").unit, "samples/s");
  EXPECT_EQ(candidate("samples_per_s_low").unit, "samples/s");  // an interval bound: its value's
  EXPECT_EQ(candidate("samples_per_s_high").unit, "samples/s");
  EXPECT_EQ(candidate("step_time_s_high").unit, "s");
  EXPECT_EQ(validation("measured_samples_per_s").unit, "samples/s");
  EXPECT_EQ(candidate("tokens_per_s").unit, "tokens/s");
  EXPECT_EQ(candidate("mfu").unit, "fraction");
  EXPECT_EQ(candidate("swarmx_share").unit, "fraction");
  EXPECT_EQ(validation("error_pct").unit, "%");
  EXPECT_EQ(candidate("micro_batch_size").unit, "samples");
  EXPECT_EQ(candidate("tokens_per_step").unit, "tokens");
  EXPECT_EQ(candidate("num_csx").unit, "systems");
  EXPECT_EQ(candidate("requested_micro_batch_size").unit, "");
  EXPECT_EQ(candidate("bound").unit, "");
  EXPECT_EQ(candidate_columns().size(), 51u);
  EXPECT_EQ(candidate("input_samples_per_s_per_csx").unit, "samples/s");
  EXPECT_EQ(candidate("input_wait_s").unit, "s");
  // validate's 13, then the input-fed rate and its error of the input-bound runs.
  const auto& v = validation_schema().columns();
  ASSERT_EQ(v.size(), 15u);
  EXPECT_EQ(v[13].name, "input_fed_samples_per_s");
  EXPECT_EQ(v[13].unit, "samples/s");
  EXPECT_EQ(v[14].name, "input_fed_error_pct");
  EXPECT_EQ(v[14].unit, "%");
}

TEST(ResultsSchema, TypesOfTheColumns) {
  EXPECT_EQ(candidate("num_csx").type, ColumnType::kInteger);
  EXPECT_EQ(candidate("steps").type, ColumnType::kInteger);
  EXPECT_EQ(candidate("fits").type, ColumnType::kBool);
  EXPECT_EQ(candidate("chosen").type, ColumnType::kBool);
  EXPECT_EQ(candidate("mfu").type, ColumnType::kReal);
  EXPECT_EQ(candidate("requested_micro_batch_size").type, ColumnType::kText);  // "auto", "64"
  EXPECT_EQ(validation("micro_batch_size").type, ColumnType::kInteger);
}

TEST(ResultsSchema, RealsCarryNineDigits) {
  const ColumnInfo real{"x_s", "s", ColumnType::kReal};
  const Value v = normalized(real, 1.0 / 3.0);
  EXPECT_EQ(std::get<double>(v), 0.333333333);
  EXPECT_EQ(field_text(v), "0.333333333");
  EXPECT_EQ(field_text(normalized(real, 36e9)), "3.6e+10");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(
      normalized({"t", "", ColumnType::kText}, std::string())));  // empty text is null
  EXPECT_THROW((void)normalized(real, std::int64_t{1}), std::logic_error);
}

TEST(ResultsSchema, FieldsReadBackByType) {
  const auto at = "f.csv: record 2";
  EXPECT_EQ(parse_field(candidate("num_csx"), "4", at), Value(std::int64_t{4}));
  EXPECT_EQ(parse_field(candidate("fits"), "true", at), Value(true));
  EXPECT_EQ(parse_field(candidate("step_time_s"), "", at), Value());
  EXPECT_EQ(parse_field(candidate("mfu"), "0.264626755", at), Value(0.264626755));
  EXPECT_EQ(parse_field(candidate("requested_micro_batch_size"), "64", at),
            Value(std::string("64")));
  try {
    (void)parse_field(candidate("micro_batch_size"), "x", at);
    FAIL() << "a count that is not a number was read";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f.csv: record 2: column micro_batch_size: 'x' is not a whole number");
  }
  EXPECT_THROW((void)parse_field(candidate("chosen"), "yes", at), InputError);
  EXPECT_THROW((void)parse_field(candidate("mfu"), "1.5x", at), InputError);
}

TEST(ResultsSchema, JsonValues) {
  EXPECT_TRUE(value_json(Value()).is_null());
  EXPECT_TRUE(value_json(Value(std::int64_t{4})).is_number_integer());
  EXPECT_TRUE(value_json(Value(1.0)).is_number_float());
}

TEST(ResultsSchema, DocumentHoldsInputsUnitsAndRecords) {
  const std::vector<ColumnInfo> cols{{"num_csx", "systems", ColumnType::kInteger},
                                     {"step_time_s", "s", ColumnType::kReal},
                                     {"reason", "", ColumnType::kText}};
  const auto text = results_json(
      {{"command", "run"}}, cols,
      {{std::int64_t{2}, 1.5, Value()}, {std::int64_t{4}, Value(), std::string("does not fit")}});
  const auto doc = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(doc["inputs"]["command"], "run");
  EXPECT_EQ(doc["units"]["step_time_s"], "s");
  ASSERT_EQ(doc["records"].size(), 2u);
  EXPECT_EQ(doc["records"][0]["step_time_s"], 1.5);
  EXPECT_TRUE(doc["records"][0]["reason"].is_null());
  EXPECT_EQ(doc["records"][1]["reason"], "does not fit");
  EXPECT_THROW((void)results_json({}, cols, {{std::int64_t{1}}}), std::invalid_argument);
  EXPECT_EQ(csv_header(cols), "num_csx,step_time_s,reason\n");
  EXPECT_EQ(csv_line({std::int64_t{4}, Value(), std::string("a, b")}), "4,,\"a, b\"\n");
}

}  // namespace
}  // namespace csx::io
