// SRAM and MemoryX capacity model.
#include "model/memory_model.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace csx::model {
namespace {

double max_boundary_bytes(const ModelCosts& c) {
  double b = 0;
  for (const auto& L : c.layers) b = std::max(b, L.boundary_bytes);
  return b;
}

// Activation bytes per sample for the chosen policy.
double activation_bytes_per_sample(const ModelCosts& c, const platform::PlatformSpec& p,
                                   Pass pass) {
  const double boundary = max_boundary_bytes(c);
  if (pass == Pass::kEval) return 2 * boundary;
  if (p.activation_policy == platform::ActivationPolicy::kStoreAll)
    return c.activation_bytes_per_sample();
  const double blocks = static_cast<double>(c.num_blocks);
  const double interval = static_cast<double>(p.checkpoint_interval_layers);
  return boundary * (std::ceil(blocks / interval) + std::min(interval, blocks) + 2);
}

double fixed_bytes(const ModelCosts& c, const platform::PlatformSpec& p, Pass pass,
                   MemoryBreakdown& m) {
  m.weight_buffers_bytes = static_cast<double>(p.weight_buffers) * c.max_layer_weight_bytes();
  m.gradients_bytes = 0;
  if (pass == Pass::kTrain)
    m.gradients_bytes = p.gradient_accumulation == platform::GradientAccumulation::kWafer
                            ? 4.0 * static_cast<double>(c.parameters())
                            : c.max_layer_weight_bytes();
  m.workspace_bytes = p.workspace_bytes;
  return m.weight_buffers_bytes + m.gradients_bytes + m.workspace_bytes;
}

std::string gb(double bytes) { return fmt::format("{:.2f} GB", bytes / 1e9); }

}  // namespace

MemoryBreakdown on_chip_memory(const ModelCosts& c, const platform::PlatformSpec& p,
                               std::int64_t micro_batch_size, Pass pass) {
  MemoryBreakdown m;
  const double fixed = fixed_bytes(c, p, pass, m);
  m.activations_bytes =
      static_cast<double>(micro_batch_size) * activation_bytes_per_sample(c, p, pass);
  m.total_bytes = fixed + m.activations_bytes;
  m.capacity_bytes = p.usable_sram_bytes();
  m.headroom_bytes = m.capacity_bytes - m.total_bytes;
  m.fits = m.total_bytes <= m.capacity_bytes;
  if (!m.fits)
    m.reason = fmt::format(
        "needs {} of SRAM but {} is usable (activations {} at micro_batch_size {}, weight "
        "buffers {}, gradients {}, workspace {})",
        gb(m.total_bytes), gb(m.capacity_bytes), gb(m.activations_bytes), micro_batch_size,
        gb(m.weight_buffers_bytes), gb(m.gradients_bytes), gb(m.workspace_bytes));
  return m;
}

std::int64_t max_fitting_micro_batch_size(const ModelCosts& c, const platform::PlatformSpec& p,
                                          Pass pass) {
  MemoryBreakdown m;
  const double room = p.usable_sram_bytes() - fixed_bytes(c, p, pass, m);
  const double per_sample = activation_bytes_per_sample(c, p, pass);
  if (room < per_sample) return 0;
  const double n = std::floor(room / per_sample);
  return n > 9e18 ? std::int64_t{9'000'000'000'000'000'000} : static_cast<std::int64_t>(n);
}

MemoryXCheck memoryx_check(const ModelCosts& c, const platform::PlatformSpec& p) {
  MemoryXCheck x;
  x.required_bytes = static_cast<double>(c.parameters()) * p.memoryx_bytes_per_parameter;
  x.capacity_bytes = p.memoryx_capacity_bytes;
  x.fits = x.required_bytes <= x.capacity_bytes;
  if (!x.fits)
    x.reason = fmt::format(
        "weights and optimizer state need {:.3f} TB ({} parameters x {} bytes) but MemoryX "
        "holds {:.3f} TB (memoryx.capacity_bytes in {})",
        x.required_bytes / 1e12, c.parameters(), p.memoryx_bytes_per_parameter,
        x.capacity_bytes / 1e12, p.source);
  return x;
}

}  // namespace csx::model
