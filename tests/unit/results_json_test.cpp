// The JSON twin of a results CSV: units by column name, values typed from the CSV's fields.
#include <gtest/gtest.h>

#include "report/results_json.hpp"

namespace csx::io {
namespace {

TEST(ResultsJson, UnitsFollowTheColumnNames) {
  EXPECT_EQ(column_unit("step_time_s"), "s");
  EXPECT_EQ(column_unit("time_to_train_s"), "s");
  EXPECT_EQ(column_unit("mem_total_bytes"), "bytes");
  EXPECT_EQ(column_unit("samples_per_s"), "samples/s");
  EXPECT_EQ(column_unit("samples_per_s_low"), "samples/s");  // an interval bound: its value's
  EXPECT_EQ(column_unit("samples_per_s_high"), "samples/s");
  EXPECT_EQ(column_unit("step_time_s_high"), "s");
  EXPECT_EQ(column_unit("measured_samples_per_s"), "samples/s");
  EXPECT_EQ(column_unit("tokens_per_s"), "tokens/s");
  EXPECT_EQ(column_unit("mfu"), "fraction");
  EXPECT_EQ(column_unit("swarmx_share"), "fraction");
  EXPECT_EQ(column_unit("error_pct"), "%");
  EXPECT_EQ(column_unit("micro_batch_size"), "samples");
  EXPECT_EQ(column_unit("tokens_per_step"), "tokens");
  EXPECT_EQ(column_unit("num_csx"), "systems");
  EXPECT_EQ(column_unit("requested_micro_batch_size"), "");
  EXPECT_EQ(column_unit("bound"), "");
}

TEST(ResultsJson, FieldsAreTypedByColumn) {
  EXPECT_EQ(typed_value("num_csx", "4"), nlohmann::ordered_json(4));
  EXPECT_TRUE(typed_value("num_csx", "4").is_number_integer());
  EXPECT_EQ(typed_value("fits", "true"), nlohmann::ordered_json(true));
  EXPECT_EQ(typed_value("chosen", "false"), nlohmann::ordered_json(false));
  EXPECT_TRUE(typed_value("step_time_s", "").is_null());
  EXPECT_TRUE(typed_value("mfu", "1").is_number_float());
  EXPECT_EQ(typed_value("mfu", "0.264626755").get<double>(), 0.264626755);
  EXPECT_EQ(typed_value("mem_total_bytes", "3.6e+10").get<double>(), 36e9);
  EXPECT_EQ(typed_value("requested_micro_batch_size", "64"), nlohmann::ordered_json("64"));
  EXPECT_EQ(typed_value("micro_batch_size", "x"), nlohmann::ordered_json("x"));
}

TEST(ResultsJson, DocumentHoldsInputsUnitsAndRecords) {
  const auto text = results_json({{"command", "run"}}, {"num_csx", "step_time_s", "reason"},
                                 {{"2", "1.5", ""}, {"4", "", "does not fit"}});
  const auto doc = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(doc["inputs"]["command"], "run");
  EXPECT_EQ(doc["units"]["step_time_s"], "s");
  ASSERT_EQ(doc["records"].size(), 2u);
  EXPECT_EQ(doc["records"][0]["step_time_s"], 1.5);
  EXPECT_TRUE(doc["records"][0]["reason"].is_null());
  EXPECT_EQ(doc["records"][1]["reason"], "does not fit");
  EXPECT_THROW((void)results_json({}, {"a", "b"}, {{"1"}}), std::invalid_argument);
}

}  // namespace
}  // namespace csx::io
