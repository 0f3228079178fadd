// Compute efficiency of one layer kernel on the wafer (calibration model, see platforms/*.yaml).
//   efficiency = compute_efficiency_max x grid_fill(width) x tokens / (tokens + half_tokens)
// grid_fill: a layer's width is tiled onto a wafer_grid_side-wide core grid; the last tile is
// partly idle, so fill = width / (side x ceil(width / side)). Both factors are <= 1 and the
// token factor never falls as tokens grow.
#pragma once

#include <cstdint>

#include "platform/platform_spec.hpp"

namespace csx::platform {

// Fraction of the grid's width a layer of `width` fills, in (0, 1].
[[nodiscard]] double grid_fill(const PlatformSpec& p, std::int64_t width);

// Fraction of peak_flops a layer of `width` reaches with `tokens` tokens in its microbatch,
// in [0, 1]. 0 tokens give 0.
[[nodiscard]] double compute_efficiency(const PlatformSpec& p, std::int64_t width, double tokens);

// Seconds for `flops` FLOP of a layer of `width` over `tokens` tokens, plus the kernel
// overhead. 0 FLOP (an empty microbatch or a lookup) costs only the overhead.
[[nodiscard]] double kernel_time_s(const PlatformSpec& p, std::int64_t width, double tokens,
                                   double flops);

}  // namespace csx::platform
