// Per-layer costs of a model: parameters, streamed weight bytes, FLOPs and activation bytes.
// Sources:
//  * FLOPs: matmul FLOPs only (2 per multiply-add), each query against the keys it attends to
//    (the whole sequence, or the sliding window), as in Narayanan et al. 2021 (SC'21), eq. 3;
//    backward = 2 x forward for trained layers.
//  * Activation bytes with no matmul recomputed: Korthikanti et al. 2022, table 2
//    (s*b*h*(34 + 5*a*s/h) bytes per transformer layer, 16-bit activations) less what an
//    elementwise op rebuilds in backward (norm and activation outputs, dropout masks: 14*s*b*h;
//    Chen et al. 2016, sec. 4.1), so s*b*h*(20 + 5*a*s/h); generalised to grouped-query
//    attention, gated FFNs, windows and experts term by term (layer_costs.cpp).
//  * Family structures: GPT-J/NeoX parallel blocks (Wang & Komatsuzaki 2021; Black et al. 2022),
//    ALiBi (Press et al. 2022), multi-query attention (Shazeer 2019), T5 (Raffel et al. 2020),
//    ViT (Dosovitskiy et al. 2021), DiT adaLN-Zero (Peebles & Xie 2023), DINOv2 (Oquab et al.
//    2023), LLaVA (Liu et al. 2023), DPO (Rafailov et al. 2023).
//  * ResNet-50: He et al. 2016, table 1 (bottleneck stages 3-4-6-3).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model_spec.hpp"

namespace csx::model {

enum class LayerKind { kEmbedding, kBlock, kHead };

// One matrix product of a layer's forward pass: a rows x cols operand tiled onto the wafer.
struct Matmul {
  double rows = 0;      // first dimension mapped onto the core grid
  double cols = 0;      // second dimension
  double flops = 0;     // FLOP per sample, forward
  double head_dim = 0;  // > 0: an attention product (scores and weighted values) with heads
                        // of this width; 0: a weight-streamed product
};

struct Layer {
  std::string name;  // "embedding", "block.0", ..., "head"
  LayerKind kind = LayerKind::kBlock;
  std::int64_t parameters = 0;   // parameters owned by this layer
  bool trainable = true;         // false: frozen (no update; LLaVA phase 1)
  double weight_bytes = 0;       // bytes streamed from MemoryX per pass (16-bit weights)
  double forward_flops = 0;      // FLOP per sample, forward (sum over matmuls)
  double backward_factor = 2.0;  // backward FLOP / forward FLOP: 2 trained, 1 frozen above a
                                 // trained layer (input gradients), 0 frozen below all
  double tokens = 0;             // tokens per sample the layer processes (0: the sample's)
  std::vector<Matmul> matmuls;   // what the forward FLOPs are made of
  double activation_bytes = 0;   // bytes per sample kept for backward, no product recomputed
                                 // (elementwise results rebuilt)
  double score_bytes = 0;        // of which attention scores, softmax and dropout mask (5as^2)
  double attention_scores = 0;   // attention scores per sample (heads x queries x keys)
  double kv_bytes = 0;           // of which the attention's K and V (what a token-chunked
                                 // recompute of the block must hold whole)
  // What stays of activation_bytes when everything is kept (bytes per sample): the attention
  // scores are recomputed in the attention kernel, or `bytes_per_score` of each is kept
  // (platform calibration.kept_bytes_per_attention_score; docs/model.md#memory-model).
  [[nodiscard]] double kept_activation_bytes(double bytes_per_score) const {
    return activation_bytes - score_bytes + bytes_per_score * attention_scores;
  }
  double recompute_flops = -1;  // FLOP per sample a recompute redoes (-1: forward_flops; less
                                // when a frozen twin's forward is part of forward_flops)
  double boundary_bytes = 0;    // bytes per sample of the layer's output (16-bit)
};

struct ModelCosts {
  std::vector<Layer> layers;  // in forward order
  std::int64_t num_blocks = 0;

  [[nodiscard]] std::int64_t parameters() const;
  [[nodiscard]] std::int64_t trainable_parameters() const;
  [[nodiscard]] double weight_bytes_per_pass() const;     // bytes, all layers once
  [[nodiscard]] double forward_flops_per_sample() const;  // FLOP
  // FLOP per sample of one training step: forward + backward; with recompute, trained blocks
  // are run forward once more in backward, as eq. 3 of Narayanan et al. assumes.
  [[nodiscard]] double train_flops_per_sample(bool recompute) const;
  // Bytes per sample the memory model holds when every activation is kept (plan 1): the sum of
  // the layers' kept_activation_bytes(bytes_per_score).
  [[nodiscard]] double kept_activation_bytes_per_sample(double bytes_per_score) const;
  [[nodiscard]] double max_layer_weight_bytes() const;
};

// Builds the layer list. Throws nothing for a validated ModelSpec.
[[nodiscard]] ModelCosts layer_costs(const ModelSpec& spec);

}  // namespace csx::model
