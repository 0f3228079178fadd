// The choice rules of none, integer, explore and auto.
#include "batching/choice_rules.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "batching/supported_sizes.hpp"

namespace csx::batching {
namespace {

// Step times this close are a tie: an input-bound step lasts the batch's input time whatever
// the MBS, up to rounding (docs/model.md#input-pipeline).
constexpr double kTie = 1e-9;

// Fastest fitting candidate, but `skip`; ties go to the larger MBS (fewer microbatches).
std::optional<std::size_t> fastest(const std::vector<Evaluated>& c,
                                   std::optional<std::size_t> skip = std::nullopt) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (!c[i].fits || i == skip) continue;
    if (!best) {
      best = i;
      continue;
    }
    const double a = c[i].step_time_s, b = c[*best].step_time_s;
    const bool tie = std::abs(a - b) <= kTie * b;
    if ((!tie && a < b) || (tie && c[i].micro_batch_size > c[*best].micro_batch_size)) best = i;
  }
  return best;
}

double samples_per_s(const Evaluated& e) {
  return 1.0 / e.step_time_s;
}

// " (close call: runner-up N within X%)" when the fastest other fitting candidate's step time is
// within `threshold` of the chosen one's (docs/rules.md#microbatching-rules); empty otherwise.
std::string close_call(const std::vector<Evaluated>& c, std::size_t chosen, double threshold) {
  const auto next = fastest(c, chosen);
  if (!next) return "";
  // A rounding tie may leave the runner-up a hair faster: within 0 %.
  const double gap = std::max(0.0, c[*next].step_time_s / c[chosen].step_time_s - 1);
  if (gap > threshold) return "";
  return fmt::format(" (close call: runner-up {} within {:.1f}%)", c[*next].micro_batch_size,
                     100 * gap);
}

}  // namespace

std::optional<std::int64_t> auto_extra_candidate(std::int64_t P, bool p_fits, bool batch_norm,
                                                 std::int64_t max_fitting) {
  if (p_fits || batch_norm) return std::nullopt;
  // When not even 1 fits, 1: its row reports the least on-chip memory any size needs.
  return supported_floor(P, std::clamp<std::int64_t>(max_fitting, 1, P));
}

Choice choose(const MbsSetting& setting, std::int64_t P, const std::vector<Evaluated>& c,
              double auto_min_speedup) {
  Choice out;
  const auto best = fastest(c);
  if (!best) {
    out.decision = "no candidate fits in on-chip memory";
    return out;
  }
  out.chosen = best;
  const bool is_auto = std::holds_alternative<MbsAuto>(setting);
  bool marked = !is_auto && !std::holds_alternative<MbsExplore>(setting);  // no close call to mark
  if (is_auto && c.front().micro_batch_size == P && c.front().fits) {
    const double gain = samples_per_s(c[*best]) / samples_per_s(c.front()) - 1;
    if (*best == 0 || gain <= auto_min_speedup) {
      out.chosen = 0;
      out.decision = *best == 0
                         ? fmt::format("auto kept {}: it is the fastest candidate", P)
                         : fmt::format(
                               "auto kept {}: no benefit from gradient accumulation expected "
                               "(close call: best other candidate {} is {:.1f}% faster, "
                               "threshold {:.0f}%)",
                               P, c[*best].micro_batch_size, 100 * gain, 100 * auto_min_speedup);
      marked = *best != 0;  // the runner-up is within the threshold, and named
    } else {
      out.decision = fmt::format(
          "auto chose MBS {}: {:.1f}% faster than MBS {} (the whole per-system batch in one "
          "microbatch); auto splits the batch only for a gain above {:.0f}% (auto_min_speedup)",
          c[*best].micro_batch_size, 100 * gain, P, 100 * auto_min_speedup);
    }
  } else if (is_auto) {
    out.decision = fmt::format(
        "auto chose {}: per-system batch {} does not fit on-chip memory; "
        "fastest fitting candidate",
        c[*best].micro_batch_size, P);
  } else if (std::holds_alternative<MbsExplore>(setting)) {
    const auto n = std::count_if(c.begin(), c.end(), [](const Evaluated& e) { return e.fits; });
    out.decision = fmt::format("explore chose {}: fastest of {} fitting candidates",
                               c[*best].micro_batch_size, n);
  } else {
    out.decision = fmt::format("micro_batch_size {}", c[*best].micro_batch_size);
  }
  if (!marked) out.decision += close_call(c, *out.chosen, auto_min_speedup);
  return out;
}

}  // namespace csx::batching
