// Kernel time from SIMD fill, a per-platform efficiency and fixed costs.
#include "model/compute_model.hpp"

#include <cmath>

namespace csx::model {

double simd_fill(const platform::PlatformSpec& p, double tokens) {
  if (tokens <= 0) return 0.0;
  const double x =
      tokens / (static_cast<double>(p.fabric_rows) * static_cast<double>(p.simd_width));
  return x / (x + p.dispatch_overhead_cycles);
}

double kernel_time_s(const platform::PlatformSpec& p, double tokens, double flops) {
  if (flops <= 0 || tokens <= 0) return p.kernel_overhead_s;
  return flops / (p.peak_flops * p.compute_efficiency * simd_fill(p, tokens)) + p.kernel_overhead_s;
}

double pass_flops(const Layer& layer, double samples, bool backward, double recompute_passes) {
  const double forward = layer.forward_flops * samples;
  if (!backward) return forward;
  const bool again = layer.kind == LayerKind::kBlock && layer.backward_factor > 0;
  const double redo = layer.recompute_flops >= 0 ? layer.recompute_flops : layer.forward_flops;
  return forward * layer.backward_factor + (again ? recompute_passes * redo * samples : 0.0);
}

double pass_tokens(const Layer& layer, double samples, double seq_len) {
  return samples * (layer.tokens > 0 ? layer.tokens : seq_len);
}

}  // namespace csx::model
