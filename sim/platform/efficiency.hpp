// Compute efficiency of one layer kernel on the wafer (calibration model, see platforms/*.yaml).
//   efficiency = compute_efficiency_max x utilization x tokens / (tokens + half_tokens)
// utilization is the layer's tile utilization (model::layer_tile_utilization: its matrices
// spread over a wafer_grid_side-wide core grid). Every factor is <= 1 and the token factor
// never falls as tokens grow.
#pragma once

#include "platform/platform_spec.hpp"

namespace csx::platform {

// Fraction of peak_flops a layer with tile utilization `fill` (0, 1] reaches with `tokens` tokens in
// its microbatch, in [0, 1]. 0 tokens give 0.
[[nodiscard]] double compute_efficiency(const PlatformSpec& p, double fill, double tokens);

// Seconds for `flops` FLOP of a layer with tile utilization `fill` over `tokens` tokens, plus the
// kernel overhead. 0 FLOP (an empty microbatch or a lookup) costs only the overhead.
[[nodiscard]] double kernel_time_s(const PlatformSpec& p, double fill, double tokens,
                                   double flops);

}  // namespace csx::platform
