// How long a layer kernel runs on the wafer (docs/model.md#compute-model).
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
// the tokens for the same fill.
//
// Attention products (scores Q K^T and weighted values A V) stream no weights (the SRAM
// roofline below caps them as it caps every product): per score a core
// does 2 x head_dim multiply-adds, 2 d / simd_width cycles, plus s cycles of elementwise softmax
// and mask work (`softmax_cycles_per_score`), so they run at
//   attention_fill = (2 d / w) / (2 d / w + s)
// of the matmul rate: narrow heads and wide SIMD spend more of their time in the softmax.
//
// A weight-streamed product of K input features splits them over the grid's fabric_columns;
// per output a core does K / (columns x w) cycles of multiply-adds and sends and adds one
// partial sum across the columns, r = `reduce_cycles_per_output` cycles (a 32-bit wavelet per
// hop per cycle: Cerebras SDK, "A Conceptual View"), so it runs at
//   reduction_fill = (K / (columns x w)) / (K / (columns x w) + r):
// narrow layers and wide SIMD (CS-3 doubles the lanes, not the fabric) reduce more per FLOP.
// r is fitted, one value for every platform (docs/model.md#compute-model).
// A core's SRAM feeds its FMACs: a busy core's products need m = `sram_bytes_per_flop` bytes of
// SRAM traffic per FLOP (activation reads, partial-sum reads and writes, less what registers
// reuse). A platform supplies sram_bandwidth_Bps / peak_flops bytes per FLOP: 2.67 on a CS-2,
// 1.4 on a CS-3, which doubles the FMACs but not the SRAM bandwidth behind them (The Next
// Platform, 2024-03-14). compute_efficiency stands for the cores that hold no work and the
// pipeline bubbles; the busy cores' rate is capped by their SRAM (a roofline):
//   sram_fill = min(1, (sram_bandwidth_Bps / peak_flops) / m)   (1 when m = 0).
// No model shape enters, so it scales every product of a platform alike. The platform files
// set m = 0 (off): fitted with r it goes to 0 (docs/calibration.md#accuracy).
// A kernel's time is
//   t = sum over its products of F_i / fill_i /
//       (peak_flops x compute_efficiency x simd_fill x sram_fill) + kernel_overhead_s
// with fill_i the product's attention_fill or reduction_fill; a pass (backward, recompute)
// keeps the forward's split of FLOP over the products (a simplification: backward's input and
// weight gradients contract over other dimensions).
// where compute_efficiency (fitted, one value for every platform) is the share of peak a
// weight-streamed product reaches with full lanes: cores that hold no work, pipeline bubbles.
#pragma once

#include "model/layer_costs.hpp"
#include "platform/platform_spec.hpp"

namespace csx::model {

// Fraction of SIMD lanes doing work for a kernel over `tokens` tokens, in [0, 1); 0 for none.
[[nodiscard]] double simd_fill(const platform::PlatformSpec& p, double tokens);

// Rate of attention products against weight-streamed ones, in (0, 1]; 1 for head_dim <= 0 or
// no softmax cost.
[[nodiscard]] double attention_fill(const platform::PlatformSpec& p, double head_dim);

// Rate of a weight-streamed product of `input_features` (its contraction K) against one of
// unbounded width, in (0, 1]: (K / (columns x w)) / (K / (columns x w) + r); 1 for K <= 0 or
// r <= 0.
[[nodiscard]] double reduction_fill(const platform::PlatformSpec& p, double input_features);

// Share of the FMAC rate the SRAM bandwidth sustains, in (0, 1]; 1 when sram_bytes_per_flop is 0.
[[nodiscard]] double sram_fill(const platform::PlatformSpec& p);

// Seconds of a kernel of `flops` FLOP over `tokens` tokens, all of it weight-streamed products.
// 0 FLOP (an embedding lookup, a frozen layer's skipped backward) costs only kernel_overhead_s.
[[nodiscard]] double kernel_time_s(const platform::PlatformSpec& p, double tokens, double flops);

// The same for a pass of `layer` of `flops` FLOP: each forward product's share of the layer's
// FLOP (the same share in backward and recompute) runs at its attention_fill (attention
// products) or reduction_fill (weight-streamed ones, by their input features).
[[nodiscard]] double kernel_time_s(const platform::PlatformSpec& p, const Layer& layer,
                                   double tokens, double flops);

// FLOP of a layer pass for `samples` samples. Backward is `backward_factor` x forward, plus
// `recompute_passes` forward passes of a trained block whose activations were not kept
// (memory_model.hpp decides how many).
[[nodiscard]] double pass_flops(const Layer& layer, double samples, bool backward,
                                double recompute_passes);

// Tokens of a layer pass for `samples` samples (the layer's own, else `seq_len` per sample).
[[nodiscard]] double pass_tokens(const Layer& layer, double samples, double seq_len);

}  // namespace csx::model
