// On-chip (SRAM) memory of one CS-X for a microbatch, the activation plan the compiler picks,
// and the MemoryX capacity check. Pure functions (docs/model.md#memory-model).
//
// Weights never live on the wafer (they stream in layer by layer); activations do (Cerebras,
// "Weight Streaming Execution", training docs rel-2.10). What backward needs is kept, or
// recomputed from checkpoints. Per sample, with K = kept activations of every layer
// (Korthikanti et al. 2022, table 2, without the attention scores, which the attention kernel
// recomputes as FlashAttention does: Dao et al. 2022, unless the platform's
// kept_bytes_per_attention_score keeps that many bytes of each; and without what an elementwise op
// rebuilds for free: norm and activation outputs, dropout masks; Chen et al. 2016, sec. 4.1;
// model/layer_costs.hpp) and b = one layer boundary (2 s h bytes),
// the plans, in order of recompute:
//   1. keep all: K; no recompute.
//   2. keep a fraction f of K, recompute the rest: f K + (1 - f) C; 1 - f forward passes.
//   3. checkpoints every k blocks, each segment recomputed once in backward (Chen et al. 2016):
//      C = b (ceil(L / k) + k + 2) + KV, k minimizing it; one forward pass.
//   4. checkpoints every k blocks, each block recomputed from its segment's checkpoint
//      (nested recomputation; Griewank & Walther 2000): b (ceil(L / k) + 3) + KV; (k + 1) / 2
//      passes.
// Plans 3 and 4 recompute and back-propagate a block in token chunks, as FlashAttention's
// backward does (Dao et al. 2022): besides its boundaries a block then holds only its attention's
// K and V (KV = 4 s kv bytes) whole, not its other activations. That is the hypothesis (the
// compiler's real choice is not public) that admits every Model Zoo preset; it makes the
// smallest footprint a few boundaries per sample.
// The compiler is taken to pick the least recompute that fits (every shipped Model Zoo MBS
// compiled, although no plan without recompute fits them: `csxsim validate`'s memory facts,
// docs/model.md#memory-model).
#pragma once

#include <cstdint>
#include <string>

#include "model/layer_costs.hpp"
#include "platform/platform_spec.hpp"

namespace csx::model {

enum class Pass { kTrain, kEval };

// "train" or "eval", as the CSV and the reports write it.
[[nodiscard]] const char* to_string(Pass pass);

struct MemoryBreakdown {
  double activations_bytes = 0;     // kept for backward (train) or live between layers (eval)
  double weight_buffers_bytes = 0;  // weight_buffers x the largest layer's 16-bit weights
  double gradients_bytes = 0;       // gradient buffer (train only)
  double workspace_bytes = 0;       // kernel scratch and I/O buffers
  double total_bytes = 0;
  double capacity_bytes = 0;  // usable SRAM
  double headroom_bytes = 0;  // capacity - total (negative when it does not fit)
  bool fits = false;
  double recompute_passes = 0;  // forward passes of each trained block recomputed in backward
  std::string activation_plan;  // e.g. "all kept", "62% kept", "checkpoints every 6 blocks"
  std::string reason;           // why it does not fit; empty when it fits
};

// Memory of one system running microbatches of `micro_batch_size` samples, with the least
// recompute that fits (platform.store_all_activations: plan 1 only).
[[nodiscard]] MemoryBreakdown on_chip_memory(const ModelCosts& costs,
                                             const platform::PlatformSpec& p,
                                             std::int64_t micro_batch_size, Pass pass);

// The largest micro-batch size that fits with any plan (samples); 0 when even 1 does not fit.
[[nodiscard]] std::int64_t max_fitting_micro_batch_size(const ModelCosts& costs,
                                                        const platform::PlatformSpec& p, Pass pass);

// The largest micro-batch size whose activations all stay (plan 1); 0 when 1 does not.
[[nodiscard]] std::int64_t max_micro_batch_size_without_recompute(const ModelCosts& costs,
                                                                  const platform::PlatformSpec& p);

struct MemoryXCheck {
  double required_bytes = 0;  // parameters x memoryx_bytes_per_parameter
  double capacity_bytes = 0;
  bool fits = false;
  std::string reason;
};

// Weights plus optimizer state against the MemoryX capacity.
[[nodiscard]] MemoryXCheck memoryx_check(const ModelCosts& costs, const platform::PlatformSpec& p);

}  // namespace csx::model
