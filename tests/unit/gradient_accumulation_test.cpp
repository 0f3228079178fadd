// Gradient accumulation with size/B weights reproduces the full-batch gradient, even with
// uneven splits. The model is a tiny least-squares regression written here:
// loss(w) = 1/(2B) * sum_i (w . x_i - y_i)^2, gradient = 1/B * sum_i (w . x_i - y_i) x_i.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "batching/batch_split.hpp"
#include "batching/resolve.hpp"
#include "batching/step_plan.hpp"

using namespace csx::batching;

namespace {

constexpr int kDim = 3;
using Vec = std::array<double, kDim>;

struct Sample {
  Vec x;
  double y;
};

std::vector<Sample> make_data(std::int64_t n) {
  std::vector<Sample> d;
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5;
  };
  for (std::int64_t i = 0; i < n; ++i) d.push_back({{next(), next(), next()}, next()});
  return d;
}

// Mean gradient over samples [begin, end); zero for an empty range.
Vec mean_gradient(const std::vector<Sample>& d, std::size_t begin, std::size_t end, const Vec& w) {
  Vec g{};
  for (std::size_t i = begin; i < end; ++i) {
    double r = -d[i].y;
    for (int j = 0; j < kDim; ++j) r += w[j] * d[i].x[j];
    for (int j = 0; j < kDim; ++j) g[j] += r * d[i].x[j];
  }
  if (end > begin)
    for (auto& v : g) v /= static_cast<double>(end - begin);
  return g;
}

void check(std::int64_t B, std::int64_t N, std::int64_t mbs) {
  const auto data = make_data(B);
  const Vec w{0.3, -1.2, 0.7};
  const Vec full = mean_gradient(data, 0, data.size(), w);
  // The requested MBS goes through the platform's resolution first (3 for P = 4 becomes 2).
  const auto split = split_batch(B, N);
  const auto resolved = resolve(MbsFixed{mbs}, split, {"lsq", true, false}, false);
  const auto plan = make_plan(split, resolved.micro_batch_size);
  const auto weights = gradient_weights(plan);
  const auto sizes = plan.per_system();
  Vec acc{};
  std::size_t pos = 0;
  for (std::size_t s = 0; s < sizes.size(); ++s)
    for (std::size_t j = 0; j < sizes[s].size(); ++j) {
      const auto n = static_cast<std::size_t>(sizes[s][j]);
      const Vec g = mean_gradient(data, pos, pos + n, w);
      for (int d = 0; d < kDim; ++d) acc[d] += weights[s][j] * g[d];
      pos += n;
    }
  ASSERT_EQ(pos, data.size());
  for (int d = 0; d < kDim; ++d) EXPECT_NEAR(acc[d], full[d], 1e-12) << B << " " << N << " " << mbs;
}

}  // namespace

TEST(GradientAccumulation, UnevenSplitsMatchFullBatch) {
  check(673, 2, 169);  // systems of 337 and 336, microbatches 169/168
  check(10, 3, 3);     // systems of 4, 3, 3; 3 -> 2 (tie); microbatches [2,2], [2,1], [2,1]
  check(3, 2, 1);      // a system with an empty microbatch
}

TEST(GradientAccumulation, WeightsSumToOne) {
  const auto w = gradient_weights(make_plan(split_batch(673, 2), 169));
  double sum = 0;
  for (const auto& row : w)
    for (const auto v : row) sum += v;
  EXPECT_NEAR(sum, 1.0, 1e-15);
}
