// Suggestions for typos.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/did_you_mean.hpp"
#include "temp_files.hpp"

TEST(DidYouMean, SuggestsClosest) {
  EXPECT_EQ(csx::edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(csx::did_you_mean("micro_batch_sise", {"micro_batch_size", "batch_size"}),
            " (did you mean 'micro_batch_size'?)");
  EXPECT_EQ(csx::did_you_mean("num_cxs", {"num_csx"}), " (did you mean 'num_csx'?)");
  EXPECT_EQ(csx::did_you_mean("zzzzzz", {"num_csx"}), "");
  // A word in another case is that word, however many letters differ in case (AUTO is 4 edits
  // from auto, beyond the reach of 2); none is preferred over nan for no reason of case.
  EXPECT_EQ(csx::did_you_mean("AUTO", {"auto", "explore", "none"}), " (did you mean 'auto'?)");
  EXPECT_EQ(csx::did_you_mean("nan", {"auto", "explore", "none"}), " (did you mean 'none'?)");
}

TEST(DidYouMean, ModelPaths) {
  // A folder of the user's with gpt3_xl.yaml and bert.yaml, and a models/ with llama_7b.yaml.
  const csx::testing::TempFiles tmp("csxsim_dym_");
  const std::filesystem::path mine =
      std::filesystem::path(tmp.write("mine/gpt3_xl.yaml", "")).parent_path();
  (void)tmp.write("mine/bert.yaml", "");
  const std::filesystem::path models =
      std::filesystem::path(tmp.write("models/llama_7b.yaml", "")).parent_path();
  // The file beside the one named, in the folder as the user wrote it (gpt3_xxl: distance 1).
  EXPECT_EQ(csx::did_you_mean_model("../mine/gpt3_xxl.yaml", mine, models),
            " (did you mean '../mine/gpt3_xl.yaml'?)");
  // No name beside it is close (bert, gpt3_xl): the closest models/ name, else nothing.
  EXPECT_EQ(csx::did_you_mean_model("mine/llama_7c.yaml", mine, models),
            " (did you mean 'llama_7b'?)");
  EXPECT_EQ(csx::did_you_mean_model("mine/no_such.yaml", mine, models), "");
  // Any input file: only a file of the same extension beside it.
  EXPECT_EQ(csx::did_you_mean_file("../mine/bertt.yaml", mine),
            " (did you mean '../mine/bert.yaml'?)");
  EXPECT_EQ(csx::did_you_mean_file("../mine/bert.csv", mine), "");
  // A mistyped extension, or none, is matched; a name under 8 characters only within 1 edit
  // (bxrt2.yaml is 2 from bert.yaml, as cs2.yaml is from a b2.yaml).
  EXPECT_EQ(csx::did_you_mean_file("../mine/gpt3_xl.yml", mine),
            " (did you mean '../mine/gpt3_xl.yaml'?)");
  EXPECT_EQ(csx::did_you_mean_file("../mine/gpt3_xl", mine),
            " (did you mean '../mine/gpt3_xl.yaml'?)");
  EXPECT_EQ(csx::did_you_mean_file("../mine/bxrt2.yaml", mine), "");
  // A bare name: the models/ names only.
  EXPECT_EQ(csx::did_you_mean_model("llama7b", {}, models), " (did you mean 'llama_7b'?)");
  EXPECT_EQ(csx::did_you_mean_model("gpt3_xl", {}, models), "");
}
