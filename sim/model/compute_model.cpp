// Kernel time from SIMD fill, a per-platform efficiency and fixed costs.
#include "model/compute_model.hpp"

#include <algorithm>
#include <cmath>

namespace csx::model {

double simd_fill(const platform::PlatformSpec& p, double tokens) {
  if (tokens <= 0) return 0.0;
  const double x =
      tokens / (static_cast<double>(p.fabric_rows) * static_cast<double>(p.simd_width));
  return x / (x + p.dispatch_overhead_cycles);
}

double attention_fill(const platform::PlatformSpec& p, double head_dim) {
  if (head_dim <= 0 || p.softmax_cycles_per_score <= 0) return 1.0;
  const double fmac_cycles = 2 * head_dim / static_cast<double>(p.simd_width);
  return fmac_cycles / (fmac_cycles + p.softmax_cycles_per_score);
}

double sram_fill(const platform::PlatformSpec& p) {
  if (p.sram_bytes_per_flop <= 0) return 1.0;
  return std::min(1.0, p.sram_bandwidth_Bps / p.peak_flops / p.sram_bytes_per_flop);
}

double kernel_time_s(const platform::PlatformSpec& p, double tokens, double flops) {
  if (flops <= 0 || tokens <= 0) return p.kernel_overhead_s;
  return flops / (p.peak_flops * p.compute_efficiency * simd_fill(p, tokens) * sram_fill(p)) +
         p.kernel_overhead_s;
}

double reduction_fill(const platform::PlatformSpec& p, double input_features) {
  if (input_features <= 0 || p.reduce_cycles_per_output <= 0) return 1.0;
  const double fmac_cycles =
      input_features / (static_cast<double>(p.fabric_columns) * static_cast<double>(p.simd_width));
  return fmac_cycles / (fmac_cycles + p.reduce_cycles_per_output);
}

double kernel_time_s(const platform::PlatformSpec& p, const Layer& layer, double tokens,
                     double flops) {
  double total = 0, equivalent = 0;
  for (const auto& mm : layer.matmuls) {
    total += mm.flops;
    equivalent +=
        mm.flops / (mm.head_dim > 0 ? attention_fill(p, mm.head_dim) : reduction_fill(p, mm.rows));
  }
  return kernel_time_s(p, tokens, total > 0 ? flops * equivalent / total : flops);
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
