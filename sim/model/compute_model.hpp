// How long a layer kernel runs on the wafer (README, "Compute model").
//
// In weight-streaming mode a kernel is mapped over the whole wafer: the microbatch's tokens
// stay distributed over the core grid, and each weight word streamed in is multicast along a
// row of cores, every core multiplying it into the tokens it holds (Lie, "Cerebras
// Architecture Deep Dive", Hot Chips 34, 2022; James, "Training Massive Models on Cerebras
// Systems using Weight Streaming", Cerebras 2021). Per weight word a core does
//   x = tokens / (fabric_rows x simd_width)
// SIMD operations plus a fixed dispatch cost of c cycles for the word's arrival (dataflow
// trigger, Lie 2022), so the share of its cycles doing useful work is
//   simd_fill = x / (x + c)
// Few tokens per microbatch leave the cores waiting on dispatch, and a CS-3 (8-wide FP16 SIMD
// against 4-wide: Cerebras CS-3 announcement, 2024; The Next Platform, 2024-03-14) needs twice
// the tokens for the same fill. A kernel's time is
//   t = FLOP / (peak_flops x compute_efficiency x simd_fill) + kernel_overhead_s
// where compute_efficiency (fitted per platform) is the share of peak the kernel reaches with
// full lanes: cores that hold no work, pipeline bubbles, and non-matmul work.
#pragma once

#include "model/layer_costs.hpp"
#include "platform/platform_spec.hpp"

namespace csx::model {

// Fraction of SIMD lanes doing work for a kernel over `tokens` tokens, in [0, 1); 0 for none.
[[nodiscard]] double simd_fill(const platform::PlatformSpec& p, double tokens);

// Seconds of a kernel of `flops` FLOP over `tokens` tokens. 0 FLOP (an embedding lookup, a
// frozen layer's skipped backward) costs only kernel_overhead_s.
[[nodiscard]] double kernel_time_s(const platform::PlatformSpec& p, double tokens, double flops);

// FLOP of a layer pass for `samples` samples. Backward is `backward_factor` x forward, plus
// `recompute_passes` forward passes of a trained block whose activations were not kept
// (memory_model.hpp decides how many).
[[nodiscard]] double pass_flops(const Layer& layer, double samples, bool backward,
                                double recompute_passes);

// Tokens of a layer pass for `samples` samples (the layer's own, else `seq_len` per sample).
[[nodiscard]] double pass_tokens(const Layer& layer, double samples, double seq_len);

}  // namespace csx::model
