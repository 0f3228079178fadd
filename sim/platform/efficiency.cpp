// Calibrated compute-efficiency model.
#include "platform/efficiency.hpp"

#include <cmath>

namespace csx::platform {

double grid_fill(const PlatformSpec& p, std::int64_t width) {
  const double w = static_cast<double>(width), side = p.wafer_grid_side;
  if (w <= 0) return 1.0;
  return w / (side * std::ceil(w / side));
}

double compute_efficiency(const PlatformSpec& p, std::int64_t width, double tokens) {
  if (tokens <= 0) return 0.0;
  return p.compute_efficiency_max * grid_fill(p, width) * tokens /
         (tokens + p.efficiency_half_tokens);
}

double kernel_time_s(const PlatformSpec& p, std::int64_t width, double tokens, double flops) {
  if (flops <= 0 || tokens <= 0) return p.kernel_overhead_s;
  return flops / (p.peak_flops * compute_efficiency(p, width, tokens)) + p.kernel_overhead_s;
}

}  // namespace csx::platform
