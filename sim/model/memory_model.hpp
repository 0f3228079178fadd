// On-chip (SRAM) memory of one CS-X for a microbatch, and the MemoryX capacity check.
// Pure functions; the policies and constants are platform calibration parameters.
#pragma once

#include <cstdint>
#include <string>

#include "model/layer_costs.hpp"
#include "platform/platform_spec.hpp"

namespace csx::model {

enum class Pass { kTrain, kEval };

struct MemoryBreakdown {
  double activations_bytes = 0;     // kept for backward (train) or live between layers (eval)
  double weight_buffers_bytes = 0;  // weight_buffers x the largest layer's 16-bit weights
  double gradients_bytes = 0;       // gradient buffer (train only)
  double workspace_bytes = 0;       // kernel scratch and I/O buffers
  double total_bytes = 0;
  double capacity_bytes = 0;  // usable SRAM
  double headroom_bytes = 0;  // capacity - total (negative when it does not fit)
  bool fits = false;
  std::string reason;  // why it does not fit; empty when it fits
};

// Memory of one system running microbatches of `micro_batch_size` samples.
// Activations (train):
//  * store_all: mbs x sum of Korthikanti activation bytes over layers;
//  * checkpoint: mbs x boundary bytes x (ceil(blocks / interval) + interval + 2): stored
//    checkpoints, the segment being recomputed, and the embedding/head boundaries.
// Eval keeps only two layer boundaries live. Gradients: one layer (16-bit) when accumulated in
// MemoryX, all parameters in fp32 (4 bytes) when accumulated on the wafer.
[[nodiscard]] MemoryBreakdown on_chip_memory(const ModelCosts& costs,
                                             const platform::PlatformSpec& p,
                                             std::int64_t micro_batch_size, Pass pass);

// The largest micro-batch size that fits (samples); 0 when even 1 does not fit.
[[nodiscard]] std::int64_t max_fitting_micro_batch_size(const ModelCosts& costs,
                                                        const platform::PlatformSpec& p,
                                                        Pass pass);

struct MemoryXCheck {
  double required_bytes = 0;  // parameters x memoryx_bytes_per_parameter
  double capacity_bytes = 0;
  bool fits = false;
  std::string reason;
};

// Weights plus optimizer state against the MemoryX capacity.
[[nodiscard]] MemoryXCheck memoryx_check(const ModelCosts& costs, const platform::PlatformSpec& p);

}  // namespace csx::model
