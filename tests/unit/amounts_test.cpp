// Durations as `plan` prints them (app/amounts.hpp), worked out by hand.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "app/amounts.hpp"

namespace csx {
namespace {

constexpr double kDay = 86400;  // seconds

TEST(HumanDuration, PicksTheUnitAndDecimals) {
  EXPECT_EQ(app::human_duration(12.5), "12.5 s");
  EXPECT_EQ(app::human_duration(42 * 60), "42.0 min");
  EXPECT_EQ(app::human_duration(5.31 * 3600), "5.31 h");
  EXPECT_EQ(app::human_duration(6.42 * kDay), "6.42 days");
}

// A deadline and the time one system fewer takes, both 30.19 days at two decimals: 127,157
// steps x 20.5115 s = 2,608,180.8 s = 30.1873 days against a deadline of 30.186 days.
TEST(HumanDuration, TwoDurationsComparedReadApart) {
  const auto [deadline, other] = app::human_durations_apart(30.186 * kDay, 127157 * 20.5115);
  EXPECT_EQ(deadline, "30.186 days");
  EXPECT_EQ(other, "30.187 days");
  // Apart at two decimals already: as human_duration prints them.
  EXPECT_EQ(app::human_durations_apart(30 * kDay, 31 * kDay),
            std::make_pair(std::string("30.00 days"), std::string("31.00 days")));
  // Equal: two decimals, not six.
  EXPECT_EQ(app::human_durations_apart(30 * kDay, 30 * kDay).second, "30.00 days");
  // At most six decimals: 1e-7 of a day apart stays equal at them.
  EXPECT_EQ(app::human_durations_apart(30 * kDay, (30 + 1e-7) * kDay).first, "30.000000 days");
}

}  // namespace
}  // namespace csx
