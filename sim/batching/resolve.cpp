// Resolution of micro_batch_size settings and the candidate lists of auto and explore.
#include "batching/resolve.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "batching/supported_sizes.hpp"
#include "common/errors.hpp"

namespace csx::batching {
namespace {

constexpr std::size_t kAutoMaxCandidates = 8;

void check_batch_norm(const ModelTraits& model, std::int64_t mbs, std::int64_t P) {
  if (model.batch_norm && mbs < P)
    throw RuleError(fmt::format(
        "micro_batch_size = {} gives {} microbatches, but model '{}' uses batch normalization, "
        "which is not compatible with microbatching: use micro_batch_size none or {}",
        mbs, num_microbatches(P, mbs), model.name, P));
}

Resolution resolve_fixed(std::int64_t m, const BatchSplit& split, const ModelTraits& model) {
  const std::int64_t P = split.per_system_batch_size;
  if (m > P)
    throw RuleError(fmt::format(
        "micro_batch_size = {} is larger than the per-system batch size {} (batch_size {} over "
        "num_csx {}): the platform refuses to compile; use a value of at most {}",
        m, P, split.batch_size, split.num_csx, P));
  Resolution r;
  r.requested = MbsFixed{m};
  r.micro_batch_size = nearest_supported(P, m);
  r.num_microbatches = num_microbatches(P, r.micro_batch_size);
  if (r.micro_batch_size != m) {
    r.adjusted = true;
    const std::int64_t lo = supported_floor(P, m), hi = supported_ceil(P, m);
    const std::int64_t k = num_microbatches(P, m);
    r.notice = fmt::format(
        "micro_batch_size {} is not a supported value for per-system batch size {} ({} "
        "microbatch{} would hold at most {} samples each), so it was moved to the nearest "
        "supported value {} with {} microbatch{} (neighbours {} and {}{})",
        m, P, k, k == 1 ? "" : "es", ceil_div(P, k), r.micro_batch_size, r.num_microbatches,
        r.num_microbatches == 1 ? "" : "es", lo, hi,
        (hi - m == m - lo) ? "; a tie goes to the smaller, which needs less memory" : "");
  }
  check_batch_norm(model, r.micro_batch_size, P);
  r.candidates = {r.micro_batch_size};
  return r;
}

}  // namespace

std::vector<std::int64_t> auto_candidates(std::int64_t P) {
  std::vector<std::int64_t> divisors;
  for (std::int64_t d = 2; d <= P / d; ++d) {
    if (P % d != 0) continue;
    divisors.push_back(d);
    if (d != P / d) divisors.push_back(P / d);
  }
  std::sort(divisors.begin(), divisors.end());
  if (divisors.empty())
    for (std::int64_t k = 2; k <= P && divisors.size() < kAutoMaxCandidates - 1; k *= 2) {
      const std::int64_t v = ceil_div(P, k);
      if (v > 1 && std::find(divisors.begin(), divisors.end(), v) == divisors.end())
        divisors.push_back(v);
    }
  std::vector<std::int64_t> out{P};
  const std::size_t n = divisors.size(), want = std::min(n, kAutoMaxCandidates - 1);
  for (std::size_t i = 0; i < want; ++i) {
    const std::size_t idx = want == 1 ? n - 1 : (i * (n - 1) + (want - 1) / 2) / (want - 1);
    if (std::find(out.begin(), out.end(), divisors[idx]) == out.end()) out.push_back(divisors[idx]);
  }
  std::sort(out.begin(), out.end(), std::greater<>());
  return out;
}

std::vector<std::int64_t> explore_candidates(std::int64_t P, std::int64_t min, std::int64_t max) {
  std::vector<std::int64_t> out;
  for (const auto& s : supported_micro_batch_sizes(P))
    if (s.micro_batch_size >= min && s.micro_batch_size <= max) out.push_back(s.micro_batch_size);
  std::reverse(out.begin(), out.end());
  return out;
}

Resolution resolve(const MbsSetting& setting, const BatchSplit& split, const ModelTraits& model,
                   bool compile_only, std::int64_t max_explore) {
  const std::int64_t P = split.per_system_batch_size;
  if (const auto* f = std::get_if<MbsFixed>(&setting)) return resolve_fixed(f->value, split, model);
  Resolution r;
  r.requested = setting;
  if (std::holds_alternative<MbsNone>(setting)) {
    r.micro_batch_size = P;
    r.num_microbatches = 1;
    r.candidates = {P};
    return r;
  }
  if (std::holds_alternative<MbsAuto>(setting)) {
    // With batch norm only k = 1 is legal, so auto has one candidate.
    r.candidates = model.batch_norm ? std::vector<std::int64_t>{P} : auto_candidates(P);
    return r;
  }
  const auto& e = std::get<MbsExplore>(setting);
  // MIN:MAX is explore over a range; the messages name what was given.
  const std::string range =
      e.min || e.max ? fmt::format("{}:{}", e.min.value_or(1), e.max.value_or(P)) : "";
  const std::string given = range.empty() ? "explore" : range + " (explore over a range)";
  if (!model.transformer)
    throw RuleError(
        fmt::format("micro_batch_size = {} is limited to transformer models, and '{}' is not one "
                    "(the platform gives a runtime error); use auto, none or an integer",
                    given, model.name));
  if (!compile_only)
    throw RuleError(fmt::format(
        "micro_batch_size = explore{} runs only in compile-only mode: add --compile-only "
        "(the platform compiles every candidate, which can take hours)",
        range.empty() ? "" : " " + range));
  const std::int64_t lo = e.min.value_or(1), hi = std::min(e.max.value_or(P), P);
  if (lo > P)
    throw RuleError(fmt::format(
        "explore min {} is larger than the per-system batch size {} (batch_size {} over num_csx "
        "{})",
        lo, P, split.batch_size, split.num_csx));
  r.candidates = explore_candidates(P, lo, hi);
  if (static_cast<std::int64_t>(r.candidates.size()) > max_explore)
    throw InputError(fmt::format(
        "micro_batch_size = {}: the range {}:{} holds {} supported sizes for the per-system "
        "batch size {}, more than --max-explore {} (each is simulated and written as a row); "
        "narrow it (a range MIN:MAX) or raise --max-explore",
        range.empty() ? "explore" : range, lo, hi, r.candidates.size(), P, max_explore));
  if (r.candidates.empty())
    throw RuleError(
        fmt::format("explore range {}:{} holds no supported micro_batch_size for "
                    "per-system batch size {}",
                    lo, hi, P));
  if (e.max && *e.max > P)
    r.notice = fmt::format(
        "explore max {} is larger than the per-system batch size {}; "
        "it was lowered to {}",
        *e.max, P, P);
  return r;
}

}  // namespace csx::batching
