// How none, an integer, explore and auto choose among evaluated candidates
// (docs/rules.md#microbatching-rules). Pure rules on (MBS, fits, step time); the search feeds them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "batching/mbs_setting.hpp"

namespace csx::batching {

// What a rule sees of one evaluated candidate.
struct Evaluated {
  std::int64_t micro_batch_size = 0;
  bool fits = false;
  double step_time_s = 0;  // seconds; meaningful when fits
};

struct Choice {
  std::optional<std::size_t> chosen;  // index into the candidates; empty when nothing fits
  std::string decision;               // how the choice was made, for the report
};

// auto's extra candidate: when the per-system batch P does not fit (and microbatching is
// allowed), the largest supported size that fits, `max_fitting` being the largest MBS that fits;
// 1 when none fits (max_fitting 0), so that the report names the smallest need. Empty when
// P fits or microbatching is not allowed.
[[nodiscard]] std::optional<std::int64_t> auto_extra_candidate(std::int64_t P, bool p_fits,
                                                               bool batch_norm,
                                                               std::int64_t max_fitting);

// The choice of `setting` among `candidates` (auto: P first): explore and auto take the fastest
// fitting one, ties going to the larger MBS; auto keeps P unless P does not fit or another
// candidate is more than `auto_min_speedup` faster (the real stack: "No benefit from gradient
// accumulation expected"). The decision of explore and auto marks a close call, "(close call:
// runner-up N within X%)", when the fastest other fitting candidate's step time is within
// `auto_min_speedup` of the chosen one's: below the 5-10 % run-to-run variation of real runs
// (docs/calibration.md#accuracy), so either could win on hardware.
[[nodiscard]] Choice choose(const MbsSetting& setting, std::int64_t P,
                            const std::vector<Evaluated>& candidates, double auto_min_speedup);

}  // namespace csx::batching
