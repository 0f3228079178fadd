// Closed-form layer costs. Symbols: s tokens per sample, h hidden, a heads, kv = kv-heads x
// head dim, f FFN width, V vocabulary, e experts, t top-k.
#include "model/layer_costs.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace csx::model {
namespace {

constexpr double kBytes16 = 2.0;  // 16-bit weights and activations

Layer transformer_block(const ModelSpec& m, std::int64_t index) {
  const double s = static_cast<double>(m.seq_len), h = static_cast<double>(m.hidden_size),
               a = static_cast<double>(m.num_heads), f = static_cast<double>(m.filter_size),
               kv = static_cast<double>(m.num_kv_heads * m.head_dim()),
               e = static_cast<double>(m.num_experts), t = static_cast<double>(m.top_k);
  const double ffn_mats = m.gated_ffn ? 3.0 : 2.0;
  const double bias = m.biases ? 1.0 : 0.0;
  const double norm_params = m.biases ? 2.0 * h : h;  // LayerNorm (gain, bias) or RMSNorm (gain)
  Layer L;
  L.name = fmt::format("block.{}", index);
  L.kind = LayerKind::kBlock;
  const double attn_params = h * (h + 2 * kv) + h * h + bias * (h + 2 * kv + h);
  const double ffn_params = e * (ffn_mats * h * f + bias * ((ffn_mats - 1) * f + h));
  const double router_params = e > 1 ? h * e : 0.0;
  L.parameters = static_cast<std::int64_t>(attn_params + ffn_params + router_params + 2 * norm_params);
  L.weight_bytes = kBytes16 * static_cast<double>(L.parameters);
  // Forward FLOPs: QKV projections, QK^T and attention x V over the full sequence (per token,
  // an h x s product over all heads), output projection, FFN (t experts per token), router.
  // f = 4h, kv = h gives 24sh^2 + 4s^2h.
  L.matmuls = {{h, h + 2 * kv, 2 * s * h * (h + 2 * kv)},
               {h, s, 2 * 2 * s * s * h},
               {h, h, 2 * s * h * h},
               {h, f, t * ffn_mats * 2 * s * h * f}};
  if (e > 1) L.matmuls.push_back({h, e, 2 * s * h * e});
  // Korthikanti et al. 2022, table 2, term by term: attention 7sh + 4s*kv + 5as^2
  // (11sh + 5as^2 with kv = h), MLP 3sh + 4sf (gated: 3sh + 6sf; times t for MoE),
  // two LayerNorms 4sh. f = 4h, kv = h: sh(34 + 5as/h).
  const double mlp = 3 * s * h + t * (m.gated_ffn ? 6.0 : 4.0) * s * f;
  L.activation_bytes = 7 * s * h + 4 * s * kv + 5 * a * s * s + mlp + 4 * s * h;
  L.boundary_bytes = kBytes16 * s * h;
  return L;
}

Layer embedding(const ModelSpec& m) {
  const double s = static_cast<double>(m.seq_len), h = static_cast<double>(m.hidden_size),
               V = static_cast<double>(m.vocab_size);
  Layer L;
  L.name = "embedding";
  L.kind = LayerKind::kEmbedding;
  double params = 0;
  if (m.architecture == Architecture::kVisionTransformer) {
    const double p = static_cast<double>(m.patch_size), c = static_cast<double>(m.num_channels);
    const double patches = s - 1;
    params = p * p * c * h + h + s * h + h;  // patch projection + bias, positions, CLS token
    L.matmuls = {{p * p * c, h, 2 * patches * p * p * c * h}};
  } else {
    params = V * h;
    if (m.position_embedding_type == "learned")
      params += static_cast<double>(m.max_position_embeddings) * h;
    if (m.architecture == Architecture::kEncoder) params += 2 * h + 2 * h;  // segments, LayerNorm
  }
  L.parameters = static_cast<std::int64_t>(params);
  L.weight_bytes = kBytes16 * params;
  L.activation_bytes = kBytes16 * s * h;
  L.boundary_bytes = kBytes16 * s * h;
  return L;
}

Layer head(const ModelSpec& m) {
  const double h = static_cast<double>(m.hidden_size), V = static_cast<double>(m.vocab_size);
  const double norm_params = m.biases ? 2.0 * h : h;
  Layer L;
  L.name = "head";
  L.kind = LayerKind::kHead;
  double params = 0, streamed = 0;
  if (m.architecture == Architecture::kVisionTransformer) {
    const double classes = static_cast<double>(m.num_classes);
    params = norm_params + h * classes + classes;
    streamed = params;
    L.matmuls = {{h, classes, 2 * h * classes}};  // the CLS token only
    L.boundary_bytes = kBytes16 * classes;
  } else {
    const double tokens = static_cast<double>(m.head_tokens > 0 ? m.head_tokens : m.seq_len);
    double extra = norm_params;
    L.matmuls = {{h, V, 2 * tokens * h * V}};
    if (m.architecture == Architecture::kEncoder) {
      // Pooler (h x h), MLM transform (h x h + LayerNorm), output bias, NSP classifier.
      extra = (h * h + h) + (h * h + h + 2 * h) + V + (2 * h + 2);
      L.matmuls.push_back({h, h, 2 * tokens * h * h + 2 * h * h});
    }
    const double logits = V * h;
    params = extra + (m.share_embedding_weights ? 0.0 : logits);
    streamed = extra + logits;  // a tied matrix is streamed again for the head
    L.boundary_bytes = kBytes16 * tokens;
  }
  L.parameters = static_cast<std::int64_t>(params);
  L.weight_bytes = kBytes16 * streamed;
  L.activation_bytes = kBytes16 * static_cast<double>(m.seq_len) * h;
  return L;
}

// ResNet-50: conv layers as (kernel, in, out, output side); BN adds 2 x out parameters.
// He et al. 2016, table 1; 224 x 224 input.
ModelCosts resnet50(const ModelSpec& m) {
  ModelCosts c;
  const double scale = static_cast<double>(m.image_size) / 224.0;
  auto conv = [&](Layer& L, double k, double cin, double cout, double side) {
    const double out_side = side * scale;
    L.parameters += static_cast<std::int64_t>(k * k * cin * cout + 2 * cout);
    L.matmuls.push_back({k * k * cin, cout, 2 * k * k * cin * cout * out_side * out_side});
    // Conv output and BN output kept for backward, 16-bit.
    L.activation_bytes += 2 * kBytes16 * cout * out_side * out_side;
    L.boundary_bytes = kBytes16 * cout * out_side * out_side;
  };
  Layer stem;
  stem.name = "embedding";
  stem.kind = LayerKind::kEmbedding;
  conv(stem, 7, static_cast<double>(m.num_channels), 64, 112);
  c.layers.push_back(stem);
  const int blocks[] = {3, 4, 6, 3};
  const double widths[] = {64, 128, 256, 512}, sides[] = {56, 28, 14, 7};
  double cin = 64;
  std::int64_t index = 0;
  for (int stage = 0; stage < 4; ++stage)
    for (int b = 0; b < blocks[stage]; ++b) {
      Layer L;
      L.name = fmt::format("block.{}", index++);
      const double w = widths[stage], side = sides[stage];
      conv(L, 1, cin, w, side);
      conv(L, 3, w, w, side);
      conv(L, 1, w, 4 * w, side);
      if (b == 0) conv(L, 1, cin, 4 * w, side);  // projection shortcut
      cin = 4 * w;
      c.layers.push_back(L);
    }
  Layer fc;
  fc.name = "head";
  fc.kind = LayerKind::kHead;
  const double classes = static_cast<double>(m.num_classes);
  fc.parameters = static_cast<std::int64_t>(cin * classes + classes);
  fc.matmuls = {{cin, classes, 2 * cin * classes}};
  fc.activation_bytes = kBytes16 * cin;
  fc.boundary_bytes = kBytes16 * classes;
  c.layers.push_back(fc);
  for (auto& L : c.layers) L.weight_bytes = kBytes16 * static_cast<double>(L.parameters);
  c.num_blocks = index;
  return c;
}

void sum_flops(ModelCosts& c) {
  for (auto& L : c.layers) {
    L.forward_flops = 0;
    for (const auto& mm : L.matmuls) L.forward_flops += mm.flops;
  }
}

}  // namespace

double tile_utilization(double rows, double cols, double side, double half_elements) {
  const double elements = rows * cols / (side * side);
  return elements / (elements + half_elements);
}

double layer_tile_utilization(const Layer& layer, double side, double half_elements) {
  double flops = 0, weighted = 0;
  for (const auto& mm : layer.matmuls) {
    flops += mm.flops;
    weighted += mm.flops / tile_utilization(mm.rows, mm.cols, side, half_elements);
  }
  return weighted > 0 ? flops / weighted : 1.0;
}

ModelCosts layer_costs(const ModelSpec& spec) {
  ModelCosts c;
  if (spec.architecture == Architecture::kResNet) {
    c = resnet50(spec);
  } else {
    c.layers.push_back(embedding(spec));
    for (std::int64_t i = 0; i < spec.num_hidden_layers; ++i)
      c.layers.push_back(transformer_block(spec, i));
    c.layers.push_back(head(spec));
    c.num_blocks = spec.num_hidden_layers;
  }
  sum_flops(c);
  return c;
}

std::int64_t ModelCosts::parameters() const {
  std::int64_t n = 0;
  for (const auto& L : layers) n += L.parameters;
  return n;
}

double ModelCosts::weight_bytes_per_pass() const {
  double b = 0;
  for (const auto& L : layers) b += L.weight_bytes;
  return b;
}

double ModelCosts::forward_flops_per_sample() const {
  double f = 0;
  for (const auto& L : layers) f += L.forward_flops;
  return f;
}

double ModelCosts::train_flops_per_sample(bool recompute) const {
  double f = 0;
  for (const auto& L : layers)
    f += L.forward_flops * ((recompute && L.kind == LayerKind::kBlock) ? 4.0 : 3.0);
  return f;
}

double ModelCosts::activation_bytes_per_sample() const {
  double b = 0;
  for (const auto& L : layers) b += L.activation_bytes;
  return b;
}

double ModelCosts::max_layer_weight_bytes() const {
  double b = 0;
  for (const auto& L : layers) b = std::max(b, L.weight_bytes);
  return b;
}

}  // namespace csx::model
