// Calibrated compute-efficiency model.
#include "platform/efficiency.hpp"

namespace csx::platform {

double compute_efficiency(const PlatformSpec& p, double fill, double tokens) {
  if (tokens <= 0) return 0.0;
  return p.compute_efficiency_max * fill * tokens / (tokens + p.efficiency_half_tokens);
}

double kernel_time_s(const PlatformSpec& p, double fill, double tokens, double flops) {
  if (flops <= 0 || tokens <= 0) return p.kernel_overhead_s;
  return flops / (p.peak_flops * compute_efficiency(p, fill, tokens)) + p.kernel_overhead_s;
}

}  // namespace csx::platform
