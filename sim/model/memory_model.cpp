// SRAM and MemoryX capacity model: the least-recompute activation plan that fits.
#include "model/memory_model.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <optional>

namespace csx::model {
namespace {

double max_boundary_bytes(const ModelCosts& c) {
  double b = 0;
  for (const auto& L : c.layers) b = std::max(b, L.boundary_bytes);
  return b;
}

// The K and V of the widest attention: a block recomputed or back-propagated in token chunks
// (as FlashAttention's backward does, Dao et al. 2022) holds them whole.
double max_kv_bytes(const ModelCosts& c) {
  double b = 0;
  for (const auto& L : c.layers) b = std::max(b, L.kv_bytes);
  return b;
}

// Per-sample activation bytes with everything kept (the attention scores recomputed in-kernel,
// or kept_bytes_per_attention_score of each kept).
double kept_bytes(const ModelCosts& c, const platform::PlatformSpec& p) {
  return c.kept_activation_bytes_per_sample(p.kept_bytes_per_attention_score);
}

struct Plan {
  double per_sample = 0;  // activation bytes per sample
  double recompute = 0;   // forward passes recomputed per trained block
  std::string name;
};

// Plan 3: checkpoints every k blocks, k minimizing the boundaries held.
Plan segment_plan(const ModelCosts& c) {
  const double b = max_boundary_bytes(c),
               L = static_cast<double>(std::max<std::int64_t>(1, c.num_blocks));
  double best = 1e300;
  std::int64_t best_k = 1;
  for (std::int64_t k = 1; k <= std::max<std::int64_t>(1, c.num_blocks); ++k) {
    const double n = std::ceil(L / static_cast<double>(k)) + static_cast<double>(k) + 2;
    if (n < best) {
      best = n;
      best_k = k;
    }
  }
  return {b * best + max_kv_bytes(c), 1.0, fmt::format("checkpoints every {} blocks", best_k)};
}

double fixed_bytes(const ModelCosts& c, const platform::PlatformSpec& p, Pass pass,
                   MemoryBreakdown& m) {
  m.weight_buffers_bytes = static_cast<double>(p.weight_buffers) * c.max_layer_weight_bytes();
  m.gradients_bytes = 0;
  if (pass == Pass::kTrain)
    m.gradients_bytes = p.gradient_accumulation == platform::GradientAccumulation::kWafer
                            ? 4.0 * static_cast<double>(c.trainable_parameters())
                            : c.max_layer_weight_bytes();
  m.workspace_bytes = p.workspace_bytes;
  return m.weight_buffers_bytes + m.gradients_bytes + m.workspace_bytes;
}

// The least-recompute plan whose activations fit in `room` bytes for `n` samples.
std::optional<Plan> choose(const ModelCosts& c, const platform::PlatformSpec& p, Pass pass,
                           double n, double room) {
  const double b = max_boundary_bytes(c);
  if (pass == Pass::kEval) {
    if (n * 2 * b <= room) return Plan{2 * b, 0, "two layer boundaries live"};
    return std::nullopt;
  }
  const double K = kept_bytes(c, p);
  if (n * K <= room) return Plan{K, 0, "all kept"};
  if (p.store_all_activations) return std::nullopt;
  const Plan seg = segment_plan(c);
  if (n * seg.per_sample <= room) {
    if (K <= seg.per_sample) return seg;
    const double f = (room / n - seg.per_sample) / (K - seg.per_sample);  // in [0, 1)
    return Plan{f * K + (1 - f) * seg.per_sample, 1 - f,
                fmt::format("{:.0f}% kept, rest recomputed", 100 * f)};
  }
  const double L = static_cast<double>(std::max<std::int64_t>(1, c.num_blocks));
  for (std::int64_t k = 2; k <= std::max<std::int64_t>(2, c.num_blocks); ++k) {
    const double per_sample = b * (std::ceil(L / static_cast<double>(k)) + 3) + max_kv_bytes(c);
    if (per_sample >= seg.per_sample) continue;
    if (n * per_sample <= room)
      return Plan{per_sample, (static_cast<double>(k) + 1) / 2,
                  fmt::format("checkpoints every {} blocks, nested recompute", k)};
  }
  return std::nullopt;
}

// The smallest per-sample footprint any plan reaches.
double least_per_sample(const ModelCosts& c, const platform::PlatformSpec& p, Pass pass) {
  const double b = max_boundary_bytes(c);
  if (pass == Pass::kEval) return 2 * b;
  if (p.store_all_activations) return kept_bytes(c, p);
  const double L = static_cast<double>(std::max<std::int64_t>(1, c.num_blocks));
  return std::min({kept_bytes(c, p), segment_plan(c).per_sample,
                   b * (std::ceil(L / std::max(2.0, L)) + 3) + max_kv_bytes(c)});
}

std::string gb(double bytes) {
  return fmt::format("{:.2f} GB", bytes / 1e9);
}

std::int64_t samples_in(double room, double per_sample) {
  if (per_sample <= 0) return std::int64_t{9'000'000'000'000'000'000};
  if (room < per_sample) return 0;
  const double n = std::floor(room / per_sample);
  return n > 9e18 ? std::int64_t{9'000'000'000'000'000'000} : static_cast<std::int64_t>(n);
}

}  // namespace

const char* to_string(Pass pass) {
  return pass == Pass::kTrain ? "train" : "eval";
}

MemoryBreakdown on_chip_memory(const ModelCosts& c, const platform::PlatformSpec& p,
                               std::int64_t micro_batch_size, Pass pass) {
  MemoryBreakdown m;
  const double fixed = fixed_bytes(c, p, pass, m);
  m.capacity_bytes = p.usable_sram_bytes();
  const double n = static_cast<double>(micro_batch_size);
  const auto plan = choose(c, p, pass, n, m.capacity_bytes - fixed);
  if (plan) {
    m.activations_bytes = n * plan->per_sample;
    m.recompute_passes = plan->recompute;
    m.activation_plan = plan->name;
  } else {
    m.activations_bytes = n * least_per_sample(c, p, pass);
    m.activation_plan = "none fits";
  }
  m.total_bytes = fixed + m.activations_bytes;
  m.headroom_bytes = m.capacity_bytes - m.total_bytes;
  m.fits = plan.has_value();
  if (!m.fits)
    m.reason = fmt::format(
        "needs {} of SRAM but {} is usable (activations {} at micro_batch_size {} with the "
        "least that any plan keeps, weight buffers {}, gradients {}, workspace {})",
        gb(m.total_bytes), gb(m.capacity_bytes), gb(m.activations_bytes), micro_batch_size,
        gb(m.weight_buffers_bytes), gb(m.gradients_bytes), gb(m.workspace_bytes));
  return m;
}

std::int64_t max_fitting_micro_batch_size(const ModelCosts& c, const platform::PlatformSpec& p,
                                          Pass pass) {
  MemoryBreakdown m;
  const double room = p.usable_sram_bytes() - fixed_bytes(c, p, pass, m);
  return samples_in(room, least_per_sample(c, p, pass));
}

std::int64_t max_micro_batch_size_without_recompute(const ModelCosts& c,
                                                    const platform::PlatformSpec& p) {
  MemoryBreakdown m;
  const double room = p.usable_sram_bytes() - fixed_bytes(c, p, Pass::kTrain, m);
  return samples_in(room, kept_bytes(c, p));
}

MemoryXCheck memoryx_check(const ModelCosts& c, const platform::PlatformSpec& p) {
  MemoryXCheck x;
  x.required_bytes = static_cast<double>(c.parameters()) * p.memoryx_bytes_per_parameter;
  x.capacity_bytes = p.memoryx_capacity_bytes;
  x.fits = x.required_bytes <= x.capacity_bytes;
  if (!x.fits)
    x.reason = fmt::format(
        "weights and optimizer state need {:.3f} TB ({} parameters x {} bytes) but MemoryX "
        "holds {:.3f} TB ({})",
        x.required_bytes / 1e12, c.parameters(), p.memoryx_bytes_per_parameter,
        x.capacity_bytes / 1e12, p.origin("memoryx.capacity_bytes"));
  return x;
}

}  // namespace csx::model
