// Closed-form layer costs. Symbols: s tokens per sample, h hidden, a heads, d head width,
// i = a*d attention width, kv = kv-heads x d, f FFN width, V vocabulary, e routed experts,
// t top-k, r shared experts, w keys per query.
#include "model/layer_costs.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace csx::model {
namespace {

constexpr double kBytes16 = 2.0;  // 16-bit weights and activations

double d(std::int64_t v) {
  return static_cast<double>(v);
}

double norm_params(const Stack& st) {
  return st.layer_norm ? 2.0 * d(st.hidden_size) : d(st.hidden_size);
}

// Keys each query of block `index` attends to.
double keys_per_query(const Stack& st, std::int64_t index) {
  const double full = st.keys_per_query > 0 ? st.keys_per_query : d(st.tokens);
  const bool windowed = st.sliding_window > 0 && index % st.windowed_every == 0;
  return windowed ? std::min(full, d(st.sliding_window)) : full;
}

// Forward matmuls of one block over `s` tokens (per sample).
std::vector<Matmul> block_matmuls(const Stack& st, double s, double w) {
  const double h = d(st.hidden_size), f = d(st.filter_size), i = d(st.attention_width()),
               kv = d(st.kv_width()), e = d(st.num_experts), t = d(st.top_k),
               r = d(st.num_shared_experts);
  const double ffn_mats = st.gated_ffn ? 3.0 : 2.0;
  std::vector<Matmul> mm{{h, i + 2 * kv, 2 * s * h * (i + 2 * kv)},  // Q, K, V projections
                         {i, s, 2 * 2 * s * w * i, d(st.head_dim)},  // QK^T and attention x V
                         {i, h, 2 * s * i * h},                      // output projection
                         {h, f, (t + r) * (ffn_mats - 1) * 2 * s * h * f},  // FFN up (gate)
                         {f, h, (t + r) * 2 * s * f * h}};                  // FFN down
  if (e > 1) mm.push_back({h, e, 2 * s * h * e});                           // router
  if (st.cross_attention_tokens > 0) {
    const double m = d(st.cross_attention_tokens);
    mm.push_back({h, i, 2 * s * h * i});                      // cross-attention Q
    mm.push_back({h, 2 * kv, 2 * m * h * 2 * kv});            // K, V of the encoder output
    mm.push_back({i, m, 2 * 2 * s * m * i, d(st.head_dim)});  // scores and weighted values
    mm.push_back({i, h, 2 * s * i * h});                      // output projection
  }
  if (st.adaptive_norm) mm.push_back({h, 6 * h, 2 * h * 6 * h});  // one conditioning vector
  return mm;
}

Layer transformer_block(const Stack& st, std::int64_t index, const std::string& prefix) {
  const double s = d(st.tokens), h = d(st.hidden_size), a = d(st.num_heads), f = d(st.filter_size),
               i = d(st.attention_width()), kv = d(st.kv_width()), e = d(st.num_experts),
               t = d(st.top_k), r = d(st.num_shared_experts);
  const double ffn_mats = st.gated_ffn ? 3.0 : 2.0;
  const double bias = st.biases ? 1.0 : 0.0;
  Layer L;
  L.name = fmt::format("{}{}", prefix, index);
  L.kind = LayerKind::kBlock;
  L.trainable = st.trainable;
  L.tokens = s + d(st.forward_only_tokens);
  const double attn_params = h * (i + 2 * kv) + i * h + bias * (i + 2 * kv + h);
  const double one_ffn = ffn_mats * h * f + bias * ((ffn_mats - 1) * f + h);
  const double ffn_params = (e + r) * one_ffn;
  const double router_params = e > 1 ? h * e : 0.0;
  const double cross_params = st.cross_attention_tokens > 0 ? attn_params + norm_params(st) : 0;
  const double modulation = st.adaptive_norm ? 6 * h * h + 6 * h : 0.0;
  L.parameters = static_cast<std::int64_t>(attn_params + ffn_params + router_params + cross_params +
                                           modulation + d(st.norms_per_block) * norm_params(st));
  L.weight_bytes = kBytes16 * d(L.parameters);
  const double w = keys_per_query(st, index);
  L.matmuls = block_matmuls(st, s, w);
  if (st.forward_only_tokens > 0) {
    // The frozen twin's forward pass (same shapes) runs on the wafer too; its FLOPs are added
    // to the forward and take no part in backward.
    double trained = 0, twin = 0;
    for (const auto& mm : L.matmuls) trained += mm.flops;
    auto extra = block_matmuls(st, d(st.forward_only_tokens), w);
    for (const auto& mm : extra) twin += mm.flops;
    L.matmuls.insert(L.matmuls.end(), extra.begin(), extra.end());
    L.backward_factor = 2.0 * trained / (trained + twin);
    L.recompute_flops = trained;  // only the trained model's activations are recomputed
  }
  // Korthikanti et al. 2022, table 2, keeps the input of every matmul and nonlinearity (34sh for
  // i = kv = h, f = 4h, two norms). What an elementwise op of the stored tensors rebuilds in
  // the backward pass is not kept (Chen et al. 2016, sec. 4.1: drop cheap results, keep costly
  // ones): a norm's output (from its input and per-token statistics), the activation's output
  // (from the FFN up projection), dropout masks (from the random generator's state, as Dao et
  // al. 2022 do). Kept, 16-bit: each norm's input 2sh; Q, K, V 2s*i + 4s*kv; the output
  // projection's input 2s*i; the up (and gate) projection outputs 2sf (4sf), times t + r for
  // MoE; plus scores 5a*s*w (recomputed by the attention kernel). i = kv = h, f = 4h: 20sh.
  // A parallel block's norms all read the block input: kept once. Products whose output a
  // learned factor multiplies keep that output for the factor's gradient: the t routed experts'
  // outputs (router weights) and DiT's two gated branch outputs (adaLN-Zero alpha), 2sh each.
  double mlp = (t + r) * (st.gated_ffn ? 4.0 : 2.0) * s * f;
  if (e > 1) mlp += t * 2 * s * h;
  double attention = 4 * s * i + 4 * s * kv;
  L.attention_scores = a * s * w;
  L.score_bytes = 5 * a * s * w;
  L.kv_bytes = 4 * s * kv;
  const double norm_inputs = st.parallel_attention_ffn ? 1.0 : d(st.norms_per_block);
  double norms = norm_inputs * 2 * s * h;
  if (st.adaptive_norm) norms += 2 * 2 * s * h;
  if (st.cross_attention_tokens > 0) {
    // Cross-attention: Q, the encoder's K and V, the output projection's input, a norm's input.
    const double m = d(st.cross_attention_tokens);
    attention += 4 * s * i + 4 * m * kv;
    L.attention_scores += a * s * m;
    L.score_bytes += 5 * a * s * m;
    L.kv_bytes += 4 * m * kv;
    norms += 2 * s * h;
  }
  L.activation_bytes = attention + L.score_bytes + mlp + norms;
  L.boundary_bytes = kBytes16 * s * h;
  return L;
}

// Token embedding: the vocabulary (lookup, no FLOPs), learned positions, optional norm.
Layer embedding(const ModelSpec& m) {
  const Stack& st = m.stacks.front();
  const double s = d(st.tokens), h = d(st.hidden_size), V = d(m.vocab_size);
  Layer L;
  L.name = "embedding";
  L.kind = LayerKind::kEmbedding;
  L.tokens = s;
  double params = V * h;
  if (st.position == "learned") params += d(m.max_position_embeddings) * h;
  if (m.embedding_layer_norm) params += norm_params(st);
  params += d(m.segment_vocab) * h;  // BERT segment (token type) embeddings
  params *= d(m.embedding_tables);   // DPR's two encoders, unshared source/target tables
  L.parameters = static_cast<std::int64_t>(params);
  L.weight_bytes = kBytes16 * params;
  L.activation_bytes = kBytes16 * s * h;
  L.boundary_bytes = kBytes16 * s * h;
  return L;
}

// Patches of an image (ViT, DINO, LLaVA's vision tower) or of a latent (DiT): one linear
// projection per patch, positions, class token; DiT adds its timestep and label embedders.
Layer patch_embedding(const ModelSpec& m, const Stack& st) {
  const double h = d(st.hidden_size), p = d(m.patch_size), c = d(m.num_channels);
  const double cls = m.architecture == Architecture::kDiffusionTransformer ? 0.0 : 1.0;
  const double s = d(st.tokens), patches = s - cls * 1.0;
  Layer L;
  L.name = st.name == "vision" && m.architecture == Architecture::kMultimodal ? "vision.embedding"
                                                                              : "embedding";
  L.kind = LayerKind::kEmbedding;
  L.trainable = st.trainable;
  L.tokens = s;
  double params = p * p * c * h + h + s * h + cls * h;
  L.matmuls = {{p * p * c, h, 2 * patches * p * p * c * h}};
  if (m.architecture == Architecture::kDiffusionTransformer) {
    const double freq = 256;  // sinusoidal timestep features (Peebles & Xie 2023, appendix)
    params += freq * h + h + h * h + h + (d(m.num_classes) + 1) * h;
    L.matmuls.push_back({freq, h, 2 * freq * h + 2 * h * h});
  }
  L.parameters = static_cast<std::int64_t>(params);
  L.weight_bytes = kBytes16 * params;
  L.activation_bytes = kBytes16 * s * (h + p * p * c);
  L.boundary_bytes = kBytes16 * s * h;
  return L;
}

// A fully connected layer of `in` x `out` (+ bias) over `rows` vectors per sample.
Layer dense(std::string name, LayerKind kind, double in, double out, double rows) {
  Layer L;
  L.name = std::move(name);
  L.kind = kind;
  L.tokens = rows;
  L.parameters = static_cast<std::int64_t>(in * out + out);
  L.weight_bytes = kBytes16 * d(L.parameters);
  L.matmuls = {{in, out, 2 * rows * in * out}};
  L.activation_bytes = kBytes16 * rows * (in + out);
  L.boundary_bytes = kBytes16 * rows * out;
  return L;
}

Layer head(const ModelSpec& m) {
  const Stack& st = m.main_stack();
  const double h = d(st.hidden_size), V = d(m.vocab_size), C = d(m.num_classes);
  const double s = d(st.tokens);
  const double final_norms = d(std::count_if(m.stacks.begin(), m.stacks.end(), [&](const Stack& x) {
    return x.name != "vision" || m.architecture != Architecture::kMultimodal;
  }));
  double params = m.final_norm ? final_norms * norm_params(st) : 0.0, streamed = 0;
  Layer L;
  L.name = "head";
  L.kind = LayerKind::kHead;
  L.tokens = s;
  L.activation_bytes = kBytes16 * s * h;
  switch (m.head) {
    case HeadKind::kLanguageModel:
    case HeadKind::kMaskedLm: {
      const double tokens = d(m.head_tokens > 0 ? m.head_tokens : st.tokens);
      L.matmuls = {{h, V, 2 * tokens * h * V}};
      if (m.head == HeadKind::kMaskedLm) {
        params += h * h + h + 2 * h + V;  // MLM transform, its LayerNorm, output bias
        L.matmuls.push_back({h, h, 2 * tokens * h * h});
        if (m.num_classes > 0) {  // BERT NSP: pooler + 2-way classifier
          params += h * h + h + 2 * h + 2;
          L.matmuls.push_back({h, h, 2 * h * h});
        }
      }
      streamed = params + V * h;  // a tied matrix is streamed again for the head
      if (!m.share_embedding_weights) params += V * h;
      L.boundary_bytes = kBytes16 * tokens;
      break;
    }
    case HeadKind::kClassifier:
    case HeadKind::kTokenClassifier:
    case HeadKind::kSentenceScorer:
    case HeadKind::kEmbedding: {
      const double rows = m.head == HeadKind::kTokenClassifier  ? s
                          : m.head == HeadKind::kSentenceScorer ? d(m.head_tokens)
                                                                : 1.0;
      if (m.architecture == Architecture::kEncoder && m.head != HeadKind::kTokenClassifier &&
          m.head != HeadKind::kSentenceScorer) {
        params += d(m.stacks.size()) * (h * h + h);  // pooler of each encoder
        L.matmuls.push_back({h, h, 2 * d(m.stacks.size()) * h * h});
      }
      const double out = m.head == HeadKind::kEmbedding ? 0.0 : std::max(C, 1.0);
      params += h * out + out;
      if (out > 0) L.matmuls.push_back({h, out, 2 * rows * h * out});
      streamed = params;
      L.boundary_bytes = kBytes16 * rows * std::max(out, 1.0);
      break;
    }
    case HeadKind::kDinoProjection: {
      // DINOv2 heads (Oquab et al. 2023): an MLP of projection_layers layers from h to the
      // bottleneck and a prototype layer to K outputs. The student's heads (stop_grad false)
      // are trained; the EMA teacher's copies only run forward and are not counted.
      const double hid = d(m.projection_hidden), bott = d(m.projection_bottleneck),
                   K = d(m.projection_output),
                   n = d(std::max<std::int64_t>(1, m.projection_layers));
      const double mlp = n == 1 ? h * bott + bott
                                : h * hid + hid + (n - 2) * (hid * hid + hid) + hid * bott + bott;
      const double one = mlp + bott * K;
      params += d(m.projection_heads) * one;
      L.matmuls = {{h, hid, 2 * d(m.projection_heads) * one * d(m.image_tokens)}};  // per crop
      streamed = params;
      L.boundary_bytes = kBytes16 * K;
      break;
    }
    case HeadKind::kNoisePrediction: {
      const double p = d(m.patch_size), out = p * p * 2 * d(m.num_channels);
      params += 2 * h * h + 2 * h + h * out + out;  // final adaLN modulation, linear
      L.matmuls = {{h, out, 2 * s * h * out + 2 * h * 2 * h}};
      streamed = params;
      L.boundary_bytes = kBytes16 * s * out;
      break;
    }
  }
  L.parameters = static_cast<std::int64_t>(params);
  L.weight_bytes = kBytes16 * streamed;
  return L;
}

// ResNet-50: conv layers as (kernel, in, out, output side); BN adds 2 x out parameters.
// He et al. 2016, table 1; 224 x 224 input.
ModelCosts resnet50(const ModelSpec& m) {
  ModelCosts c;
  const double scale = d(m.image_size) / 224.0;
  auto conv = [&](Layer& L, double k, double cin, double cout, double side) {
    const double out_side = side * scale;
    if (L.tokens == 0) L.tokens = out_side * out_side;  // a convolution's tokens: its positions
    L.parameters += static_cast<std::int64_t>(k * k * cin * cout + 2 * cout);
    L.matmuls.push_back({k * k * cin, cout, 2 * k * k * cin * cout * out_side * out_side});
    // Conv output and BN output kept for backward, 16-bit.
    L.activation_bytes += 2 * kBytes16 * cout * out_side * out_side;
    L.boundary_bytes = kBytes16 * cout * out_side * out_side;
  };
  Layer stem;
  stem.name = "embedding";
  stem.kind = LayerKind::kEmbedding;
  conv(stem, 7, d(m.num_channels), 64, 112);
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
  const double classes = d(m.num_classes);
  fc.parameters = static_cast<std::int64_t>(cin * classes + classes);
  fc.matmuls = {{cin, classes, 2 * cin * classes}};
  fc.activation_bytes = kBytes16 * cin;
  fc.boundary_bytes = kBytes16 * classes;
  c.layers.push_back(fc);
  for (auto& L : c.layers) L.weight_bytes = kBytes16 * d(L.parameters);
  c.num_blocks = index;
  return c;
}

// fc_mnist: image_size^2 x channels inputs, `depth` hidden layers of `mlp_width`, 10 classes.
ModelCosts mlp(const ModelSpec& m) {
  ModelCosts c;
  const double in = d(m.image_size * m.image_size * m.num_channels), w = d(m.mlp_width);
  c.layers.push_back(dense("embedding", LayerKind::kEmbedding, in, w, 1));
  for (std::int64_t i = 1; i < m.depth; ++i)
    c.layers.push_back(dense(fmt::format("block.{}", i - 1), LayerKind::kBlock, w, w, 1));
  c.layers.push_back(dense("head", LayerKind::kHead, w, d(m.num_classes), 1));
  c.num_blocks = std::max<std::int64_t>(0, m.depth - 1);
  return c;
}

ModelCosts transformer(const ModelSpec& m) {
  ModelCosts c;
  const bool patches = m.architecture == Architecture::kVisionTransformer ||
                       m.architecture == Architecture::kDiffusionTransformer ||
                       m.architecture == Architecture::kMultimodal;
  for (std::size_t k = 0; k < m.stacks.size(); ++k) {
    const Stack& st = m.stacks[k];
    const bool text_after_vision = m.architecture == Architecture::kMultimodal && k > 0;
    if (k == 0) c.layers.push_back(patches ? patch_embedding(m, st) : embedding(m));
    if (text_after_vision) {
      // Projector from the vision width through its layers' widths (LLaVA-1.5: two linear
      // layers to the text width).
      Layer proj;
      double in = d(m.stacks[0].hidden_size);
      for (const auto units : m.projector_units) {
        const Layer one =
            dense("projector", LayerKind::kEmbedding, in, d(units), d(m.image_tokens));
        if (proj.name.empty())
          proj = one;
        else {
          proj.parameters += one.parameters;
          proj.weight_bytes += one.weight_bytes;
          proj.matmuls.push_back(one.matmuls.front());
        }
        in = d(units);
      }
      c.layers.push_back(proj);
      ModelSpec text = m;
      text.architecture = Architecture::kDecoder;
      text.stacks = {st};
      Layer emb = embedding(text);
      emb.name = "text.embedding";
      emb.trainable = st.trainable;
      c.layers.push_back(emb);
    }
    const std::string prefix = m.stacks.size() > 1 ? st.name + ".block." : "block.";
    for (std::int64_t i = 0; i < st.num_layers; ++i)
      c.layers.push_back(transformer_block(st, i, prefix));
    c.num_blocks += st.num_layers;
  }
  c.layers.push_back(head(m));
  c.layers.back().trainable = m.main_stack().trainable;  // the head belongs to the last stack
  return c;
}

// Frozen layers below every trained layer need no backward at all; frozen layers above one
// pass gradients through (input gradients only: half the backward FLOPs).
void set_backward(ModelCosts& c) {
  bool trained_before = false;
  for (auto& L : c.layers) {
    if (L.trainable)
      trained_before = true;
    else
      L.backward_factor = trained_before ? 1.0 : 0.0;
  }
}

void sum_flops(ModelCosts& c) {
  for (auto& L : c.layers) {
    L.forward_flops = 0;
    for (const auto& mm : L.matmuls) L.forward_flops += mm.flops;
    if (L.recompute_flops < 0) L.recompute_flops = L.forward_flops;
  }
}

}  // namespace

ModelCosts layer_costs(const ModelSpec& spec) {
  ModelCosts c;
  if (spec.architecture == Architecture::kResNet)
    c = resnet50(spec);
  else if (spec.architecture == Architecture::kMlp)
    c = mlp(spec);
  else
    c = transformer(spec);
  sum_flops(c);
  set_backward(c);
  return c;
}

namespace {

// The sum of `f` over the layers.
template <typename T, typename F>
T sum(const std::vector<Layer>& layers, F f) {
  return std::accumulate(layers.begin(), layers.end(), T{},
                         [&](T total, const Layer& L) { return total + f(L); });
}

}  // namespace

std::int64_t ModelCosts::parameters() const {
  return sum<std::int64_t>(layers, [](const Layer& L) { return L.parameters; });
}

std::int64_t ModelCosts::trainable_parameters() const {
  return sum<std::int64_t>(layers, [](const Layer& L) { return L.trainable ? L.parameters : 0; });
}

double ModelCosts::weight_bytes_per_pass() const {
  return sum<double>(layers, [](const Layer& L) { return L.weight_bytes; });
}

double ModelCosts::forward_flops_per_sample() const {
  return sum<double>(layers, [](const Layer& L) { return L.forward_flops; });
}

double ModelCosts::train_flops_per_sample(bool recompute) const {
  return sum<double>(layers, [&](const Layer& L) {
    const bool again = recompute && L.kind == LayerKind::kBlock && L.backward_factor > 0;
    return L.forward_flops * (1.0 + L.backward_factor) + (again ? L.recompute_flops : 0.0);
  });
}

double ModelCosts::kept_activation_bytes_per_sample(double bytes_per_score) const {
  return sum<double>(layers,
                     [&](const Layer& L) { return L.kept_activation_bytes(bytes_per_score); });
}

double ModelCosts::max_layer_weight_bytes() const {
  double b = 0;
  for (const auto& L : layers) b = std::max(b, L.weight_bytes);
  return b;
}

}  // namespace csx::model
