// The commands' typed requests read from the options given (app/*_request.hpp): the rules that
// docs/cli.md states for each command's flags.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "app/option_table.hpp"
#include "app/plan_request.hpp"
#include "app/run_request.hpp"
#include "app/sweep_request.hpp"
#include "app/validate_request.hpp"
#include "common/errors.hpp"
#include "input/platform_loader.hpp"
#include "platform/fitted_parameters.hpp"

namespace csx {
namespace {

using Options = std::initializer_list<std::pair<std::string, std::string>>;

app::GivenOptions given(Options options) {
  app::GivenOptions g;
  for (const auto& [flag, value] : options)
    g.set(flag, value.empty() ? std::vector<std::string>{} : std::vector<std::string>{value});
  return g;
}

// Whether `read` refuses `options` with an InputError whose message holds `needle`.
template <typename Read>
::testing::AssertionResult refuses(Read read, Options options, const std::string& needle) {
  try {
    (void)read(given(options));
  } catch (const InputError& e) {
    if (std::string(e.what()).find(needle) != std::string::npos)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "refused with: " << e.what();
  }
  return ::testing::AssertionFailure() << "not refused";
}

TEST(Requests, PlanNeedsTokensAndOneOfDeadlineOrNumCsx) {
  EXPECT_TRUE(refuses(app::read_plan_request, {{"model", "gpt3_xl"}, {"num-csx", "1"}},
                      "plan needs --tokens"));
  EXPECT_TRUE(refuses(
      app::read_plan_request,
      {{"model", "gpt3_xl"}, {"tokens", "1e9"}, {"num-csx", "1"}, {"deadline", "7d"}}, "not both"));
  // --num-csx 8,2,2: the clusters ascending, each once; 7d is 7 x 86400 s.
  const auto q = app::read_plan_request(
      given({{"model", "gpt3_xl"}, {"tokens", "300B"}, {"num-csx", "8,2,2"}}));
  EXPECT_EQ(q.clusters, (std::vector<std::int64_t>{2, 8}));
  EXPECT_DOUBLE_EQ(*q.overrides.tokens, 300e9);
  const auto d =
      app::read_plan_request(given({{"model", "gpt3_xl"}, {"tokens", "1e9"}, {"deadline", "7d"}}));
  EXPECT_DOUBLE_EQ(*d.deadline_s, 7 * 86400.0);
}

TEST(Requests, SweepKeepsItsRowsInMemoryWithoutCsvAndRefusesResumeOfStandardOutput) {
  const auto q = app::read_sweep_request(
      given({{"scenario", "s.yaml"}, {"num-csx", "1:8:x2"}, {"batch-size", "264,528"}}));
  EXPECT_EQ(q.csv, "-");
  EXPECT_EQ(q.num_csx, (std::vector<std::int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(q.shard, (std::pair<std::int64_t, std::int64_t>{0, 1}));
  EXPECT_TRUE(
      refuses(app::read_sweep_request,
              {{"scenario", "s.yaml"}, {"num-csx", "1"}, {"batch-size", "8"}, {"resume", ""}},
              "--csv - with --resume"));
}

TEST(Requests, RunTraceOptionsNeedTrace) {
  EXPECT_TRUE(refuses(app::read_run_request, {{"scenario", "s.yaml"}, {"trace-systems", "1"}},
                      "needs --trace"));
  EXPECT_TRUE(refuses(app::read_run_request, {{"scenario", "s.yaml"}, {"platform", "cs2,cs3"}},
                      "run takes one platform"));
  const auto q = app::read_run_request(given({{"scenario", "s.yaml"}}));
  EXPECT_EQ(q.trace_max_events, 500000);
}

TEST(Requests, ValidateReadsTheShippedFitDataByDefault) {
  const auto q = app::read_validate_request(given({}));
  EXPECT_TRUE(q.reference.ends_with("platforms/calibration/measurements.yaml")) << q.reference;
}

// Every fitted parameter is a platform key, marked "(fitted)" in its meaning.
TEST(Requests, FittedParametersArePlatformKeys) {
  const auto keys = platform::platform_keys();
  for (const auto& p : platform::fitted_parameters()) {
    const auto k =
        std::find_if(keys.begin(), keys.end(), [&](const auto& info) { return info.key == p.key; });
    ASSERT_NE(k, keys.end()) << p.key;
    EXPECT_TRUE(k->meaning.ends_with(" (fitted)")) << k->meaning;
    EXPECT_LT(p.low, p.high) << p.key;
  }
}

}  // namespace
}  // namespace csx
