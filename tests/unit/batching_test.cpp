// Microbatching rules: the worked examples of the Cerebras guide
// (docs/rules.md#microbatching-rules), S(P) against brute force, resolution properties, rule
// checks.
#include <gtest/gtest.h>

#include <set>

#include "batching/batch_split.hpp"
#include "batching/choice_rules.hpp"
#include "batching/resolve.hpp"
#include "batching/step_plan.hpp"
#include "batching/supported_sizes.hpp"
#include "common/errors.hpp"

using namespace csx::batching;
using csx::InputError;
using csx::RuleError;

namespace {

const ModelTraits kTransformer{"gpt3", true, false};

std::vector<std::int64_t> descending_values(std::int64_t P) {
  std::vector<std::int64_t> v;
  for (const auto& s : supported_micro_batch_sizes(P)) v.push_back(s.micro_batch_size);
  return {v.rbegin(), v.rend()};
}

std::vector<std::int64_t> prefix(const std::vector<std::int64_t>& v, std::size_t n) {
  return {v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n)};
}

}  // namespace

// Worked example 1: B=133, N=1, MBS 34 is kept, 4 microbatches.
TEST(WorkedExamples, B133N1Mbs34IsKept) {
  const auto split = split_batch(133, 1);
  EXPECT_EQ(split.per_system_batch_size, 133);
  EXPECT_EQ(prefix(descending_values(133), 12),
            (std::vector<std::int64_t>{133, 67, 45, 34, 27, 23, 19, 17, 15, 14, 13, 12}));
  const auto r = resolve(MbsFixed{34}, split, kTransformer, false);
  EXPECT_EQ(r.micro_batch_size, 34);
  EXPECT_EQ(r.num_microbatches, 4);
  EXPECT_FALSE(r.adjusted);
  EXPECT_TRUE(r.notice.empty());
  // 133 = 34 + 33 + 33 + 33.
  EXPECT_EQ(make_plan(split, 34).microbatch_sizes(133),
            (std::vector<std::int64_t>{34, 33, 33, 33}));
}

// Worked example 2: B=673, N=2, MBS 168 moves to 169 with a notice, 2 microbatches.
TEST(WorkedExamples, B673N2Mbs168MovesTo169) {
  const auto split = split_batch(673, 2);
  EXPECT_EQ(split.per_system_batch_size, 337);
  EXPECT_EQ(split.per_system_batch_sizes(), (std::vector<std::int64_t>{337, 336}));
  EXPECT_EQ(prefix(descending_values(337), 10),
            (std::vector<std::int64_t>{337, 169, 113, 85, 68, 57, 49, 43, 38, 34}));
  const auto r = resolve(MbsFixed{168}, split, kTransformer, false);
  EXPECT_EQ(r.micro_batch_size, 169);
  EXPECT_EQ(r.num_microbatches, 2);
  EXPECT_TRUE(r.adjusted);
  EXPECT_NE(r.notice.find("168"), std::string::npos);
  EXPECT_NE(r.notice.find("169"), std::string::npos);
}

// Worked example 3: B=240, N=2, MBS 121 > P = 120 is refused; the message names m, P and N.
TEST(WorkedExamples, B240N2Mbs121IsRefused) {
  const auto split = split_batch(240, 2);
  try {
    (void)resolve(MbsFixed{121}, split, kTransformer, false);
    FAIL() << "expected RuleError";
  } catch (const RuleError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("121"), std::string::npos);
    EXPECT_NE(msg.find("120"), std::string::npos);
    EXPECT_NE(msg.find("num_csx 2"), std::string::npos);
  }
}

// Worked example 4: B=12, N=2, MBS 2: 3 microbatches of 2 on each system.
TEST(WorkedExamples, B12N2Mbs2ThreeMicrobatchesOfTwo) {
  const auto split = split_batch(12, 2);
  const auto r = resolve(MbsFixed{2}, split, kTransformer, false);
  EXPECT_EQ(r.num_microbatches, 3);
  const auto plan = make_plan(split, r.micro_batch_size);
  EXPECT_EQ(plan.per_system(), (std::vector<std::vector<std::int64_t>>{{2, 2, 2}, {2, 2, 2}}));
}

TEST(BatchSplit, RefusesBadSizes) {
  EXPECT_THROW((void)split_batch(3, 4), RuleError);
  EXPECT_THROW((void)split_batch(0, 1), InputError);
  EXPECT_THROW((void)split_batch(5, 0), InputError);
  EXPECT_THROW((void)split_batch(-5, 1), InputError);
  try {
    (void)split_batch(3, 4);
  } catch (const RuleError& e) {
    EXPECT_NE(std::string(e.what()).find("batch_size = 3"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("num_csx = 4"), std::string::npos);
  }
}

TEST(BatchSplit, SpreadsEvenly) {
  // 10 over 3: 4 + 3 + 3.
  const auto s = split_batch(10, 3);
  EXPECT_EQ(s.per_system_batch_size, 4);
  EXPECT_EQ(s.per_system_batch_sizes(), (std::vector<std::int64_t>{4, 3, 3}));
  EXPECT_EQ(split_batch(12, 4).per_system_batch_sizes(), (std::vector<std::int64_t>{3, 3, 3, 3}));
}

TEST(SupportedSizes, MatchesBruteForce) {
  for (std::int64_t P = 1; P <= 1500; ++P) {
    std::set<std::int64_t> brute;
    for (std::int64_t k = 1; k <= P; ++k) brute.insert((P + k - 1) / k);
    const auto fast = supported_micro_batch_sizes(P);
    ASSERT_EQ(fast.size(), brute.size()) << "P=" << P;
    auto it = brute.begin();
    for (const auto& s : fast) {
      ASSERT_EQ(s.micro_batch_size, *it++) << "P=" << P;
      ASSERT_EQ(s.num_microbatches, (P + s.micro_batch_size - 1) / s.micro_batch_size);
      ASSERT_TRUE(is_supported(P, s.micro_batch_size));
    }
    for (std::int64_t m = 1; m <= P; ++m) ASSERT_EQ(is_supported(P, m), brute.count(m) == 1);
  }
}

TEST(SupportedSizes, LargeP) {
  const std::int64_t P = std::int64_t{1} << 31;
  const auto s = supported_micro_batch_sizes(P);
  // Distinct values of ceil(P/k) number about 2*sqrt(P); here between sqrt(P) and 2*sqrt(P)+1.
  EXPECT_GT(s.size(), 46340u);
  EXPECT_LE(s.size(), 2u * 46341u);
  EXPECT_EQ(s.front().micro_batch_size, 1);
  EXPECT_EQ(s.back().micro_batch_size, P);
  for (std::size_t i = 1; i < s.size(); ++i) {
    ASSERT_LT(s[i - 1].micro_batch_size, s[i].micro_batch_size);
    // Each value is ceil(P / k) for its k, and no smaller k gives the same value.
    const auto v = s[i].micro_batch_size, k = s[i].num_microbatches;
    ASSERT_EQ((P + k - 1) / k, v);
    if (k > 1) {
      ASSERT_NE((P + k - 2) / (k - 1), v);
    }
  }
  EXPECT_TRUE(is_supported(P, P / 2));
  EXPECT_EQ(nearest_supported(P, P - 1), P);  // only P and P/2 are near the top
}

TEST(Resolve, TieGoesToTheSmaller) {
  // S(12) = {1, 2, 3, 4, 6, 12}; 5 is 1 from 4 and from 6.
  const auto r = resolve(MbsFixed{5}, split_batch(12, 1), kTransformer, false);
  EXPECT_EQ(r.micro_batch_size, 4);
  EXPECT_TRUE(r.adjusted);
  EXPECT_NE(r.notice.find("tie"), std::string::npos);
}

TEST(Resolve, NoneIsTheWholePerSystemBatch) {
  const auto r = resolve(MbsNone{}, split_batch(673, 2), kTransformer, false);
  EXPECT_EQ(r.micro_batch_size, 337);
  EXPECT_EQ(r.num_microbatches, 1);
}

// Every B <= 400, N <= 16, m <= P: the plan sums to B, k is equal on all systems, the largest
// microbatch is the resolved MBS, which is in S(P), and no value of S(P) is closer to m.
TEST(Resolve, PropertiesOverSmallGrid) {
  for (std::int64_t B = 1; B <= 400; ++B)
    for (std::int64_t N = 1; N <= 16 && N <= B; ++N) {
      const auto split = split_batch(B, N);
      const std::int64_t P = split.per_system_batch_size;
      const auto values = descending_values(P);
      for (std::int64_t m = 1; m <= P; ++m) {
        const auto r = resolve(MbsFixed{m}, split, kTransformer, false);
        ASSERT_TRUE(is_supported(P, r.micro_batch_size));
        const auto dist = std::llabs(r.micro_batch_size - m);
        for (const auto v : values) ASSERT_GE(std::llabs(v - m), dist) << B << " " << N << " " << m;
        const auto plan = make_plan(split, r.micro_batch_size);
        std::int64_t total = 0, largest = 0;
        for (std::int64_t i = 0; i < N; ++i) {
          const auto sizes = plan.microbatch_sizes(split.batch_of(i));
          ASSERT_EQ(static_cast<std::int64_t>(sizes.size()), r.num_microbatches);
          for (const auto s : sizes) {
            total += s;
            largest = std::max(largest, s);
          }
          ASSERT_LE(sizes.front() - sizes.back(), 1);
        }
        ASSERT_EQ(total, B);
        ASSERT_EQ(largest, r.micro_batch_size);
      }
    }
}

TEST(Rules, ExploreNeedsCompileOnly) {
  EXPECT_THROW((void)resolve(MbsExplore{}, split_batch(528, 1), kTransformer, false), RuleError);
  const auto r = resolve(MbsExplore{}, split_batch(528, 1), kTransformer, true);
  EXPECT_EQ(r.candidates.size(), supported_micro_batch_sizes(528).size());
}

TEST(Rules, ExploreOnlyForTransformers) {
  const ModelTraits cnn{"resnet50", false, true};
  EXPECT_THROW((void)resolve(MbsExplore{}, split_batch(256, 1), cnn, true), RuleError);
}

TEST(Rules, BatchNormRefusesMicrobatching) {
  const ModelTraits cnn{"resnet50", false, true};
  EXPECT_THROW((void)resolve(MbsFixed{64}, split_batch(256, 1), cnn, false), RuleError);
  EXPECT_EQ(resolve(MbsFixed{256}, split_batch(256, 1), cnn, false).num_microbatches, 1);
  EXPECT_EQ(resolve(MbsAuto{}, split_batch(256, 1), cnn, false).candidates,
            (std::vector<std::int64_t>{256}));
}

TEST(Rules, BoundedExplore) {
  // S(12) within [2, 5]: 4, 3, 2.
  const auto r = resolve(MbsExplore{2, 5}, split_batch(12, 1), kTransformer, true);
  EXPECT_EQ(r.candidates, (std::vector<std::int64_t>{4, 3, 2}));
  EXPECT_THROW((void)resolve(MbsExplore{13, 20}, split_batch(12, 1), kTransformer, true),
               RuleError);
  EXPECT_THROW((void)resolve(MbsExplore{5, 5}, split_batch(12, 1), kTransformer, true), RuleError);
}

// The real stack tried 3, 33, 9, 11 for B = 99 on one system, then kept 99.
TEST(Auto, DivisorsOfTheBatch) {
  EXPECT_EQ(auto_candidates(99), (std::vector<std::int64_t>{99, 33, 11, 9, 3}));
  // 528 has 18 divisors in (1, 528): at most 7 of them, plus 528.
  const auto c = auto_candidates(528);
  EXPECT_EQ(c.size(), 8u);
  EXPECT_EQ(c.front(), 528);
  for (const auto v : c) EXPECT_EQ(528 % v, 0);
  // A prime has no divisor; halvings instead, all in S(P).
  for (const auto v : auto_candidates(97)) EXPECT_TRUE(is_supported(97, v));
  EXPECT_EQ(auto_candidates(1), (std::vector<std::int64_t>{1}));
}

TEST(MbsSetting, Parses) {
  EXPECT_TRUE(std::holds_alternative<MbsAuto>(parse_mbs_setting("auto", "x")));
  EXPECT_TRUE(std::holds_alternative<MbsNone>(parse_mbs_setting("none", "x")));
  EXPECT_EQ(std::get<MbsFixed>(parse_mbs_setting("88", "x")).value, 88);
  const auto e = std::get<MbsExplore>(parse_mbs_setting("8:64", "x"));
  EXPECT_EQ(*e.min, 8);
  EXPECT_EQ(*e.max, 64);
  for (const char* bad : {"0", "-3", "1.5", "abc", "99999999999999999999", "8:4", ""})
    EXPECT_THROW((void)parse_mbs_setting(bad, "x"), InputError) << bad;
  try {
    (void)parse_mbs_setting("atuo", "--micro-batch-size");
  } catch (const InputError& e2) {
    EXPECT_NE(std::string(e2.what()).find("did you mean 'auto'"), std::string::npos);
  }
}

// Step times within 1e-9 of each other tie, and a tie goes to the larger MBS: an input-bound
// step lasts its batch's input time at every MBS, up to rounding (13.2 s against 13.2 s less
// 2e-15 s must not pick MBS 2's 264 microbatches).
TEST(ChoiceRules, RoundingTiesGoToTheLargerMbs) {
  const std::vector<Evaluated> c{
      {264, true, 13.2}, {12, true, 13.2 - 2e-15}, {2, true, 13.2 - 4e-15}};
  EXPECT_EQ(*choose(MbsExplore{}, 528, c, 0.03).chosen, 0u);
  // 1e-6 s faster in 13.2 s (7.6e-8 relative) is faster, not a tie.
  const std::vector<Evaluated> d{{264, true, 13.2}, {12, true, 13.2 - 1e-6}};
  EXPECT_EQ(*choose(MbsExplore{}, 528, d, 0.03).chosen, 1u);
}

// A close call: the runner-up's step time within auto_min_speedup (3 %) of the chosen one's.
TEST(ChoiceRules, MarksCloseCalls) {
  // explore: 10 at 4.4241 s, 9 at 4.4425 s: 4.4425 / 4.4241 - 1 = 0.416 % <= 3 %.
  const std::vector<Evaluated> ex{{11, true, 4.4991}, {10, true, 4.4241}, {9, true, 4.4425}};
  const auto e = choose(MbsExplore{}, 528, ex, 0.03);
  EXPECT_EQ(e.decision,
            "explore chose 10: fastest of 3 fitting candidates (close call: runner-up 9 within "
            "0.4%)");
  // 8 at 5 s is 25 % slower than 4 s: no close call.
  const auto far = choose(MbsExplore{}, 16, {{16, true, 4.0}, {8, true, 5.0}}, 0.03);
  EXPECT_EQ(far.decision, "explore chose 16: fastest of 2 fitting candidates");
  // auto keeps P = 112 as the fastest; 56 is 2 % slower (1.02 / 1.00 - 1): a close call.
  const auto kept = choose(MbsAuto{}, 112, {{112, true, 1.00}, {56, true, 1.02}}, 0.03);
  EXPECT_EQ(*kept.chosen, 0u);
  EXPECT_EQ(kept.decision,
            "auto kept 112: it is the fastest candidate (close call: runner-up 56 within 2.0%)");
  // auto keeps P although 56 is 2 % faster (1.02 / 1.00 - 1 <= 3 %): that is a close call too.
  const auto tie = choose(MbsAuto{}, 112, {{112, true, 1.02}, {56, true, 1.00}}, 0.03);
  EXPECT_EQ(*tie.chosen, 0u);
  EXPECT_NE(tie.decision.find("(close call: best other candidate 56 is 2.0% faster"),
            std::string::npos);
  // auto chose 28 (10 % faster than P); 56 is 1 % behind 28 (1.01 / 1.00 - 1).
  const auto chose =
      choose(MbsAuto{}, 112, {{112, true, 1.10}, {56, true, 1.01}, {28, true, 1.00}}, 0.03);
  EXPECT_EQ(*chose.chosen, 2u);
  EXPECT_EQ(chose.decision,
            "auto chose MBS 28: 10.0% faster than MBS 112 (the whole per-system batch in one "
            "microbatch); auto splits the batch only for a gain above 3% (auto_min_speedup) "
            "(close call: runner-up 56 within 1.0%)");
  // A fixed MBS has no runner-up.
  EXPECT_EQ(choose(MbsFixed{16}, 16, {{16, true, 1.0}}, 0.03).decision, "micro_batch_size 16");
}
