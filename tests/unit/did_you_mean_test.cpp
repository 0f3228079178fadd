// Suggestions for typos.
#include <gtest/gtest.h>

#include "common/did_you_mean.hpp"

TEST(DidYouMean, SuggestsClosest) {
  EXPECT_EQ(csx::edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(csx::did_you_mean("micro_batch_sise", {"micro_batch_size", "batch_size"}),
            " (did you mean 'micro_batch_size'?)");
  EXPECT_EQ(csx::did_you_mean("num_cxs", {"num_csx"}), " (did you mean 'num_csx'?)");
  EXPECT_EQ(csx::did_you_mean("zzzzzz", {"num_csx"}), "");
}
