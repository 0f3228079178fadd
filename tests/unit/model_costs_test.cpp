// Layer costs against published numbers: parameter counts, Narayanan et al. 2021 eq. 3 FLOPs,
// Korthikanti et al. 2022 table 2 activation bytes, less what elementwise ops rebuild.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "input/model_loader.hpp"
#include "model/layer_costs.hpp"
#include "shipped_models.hpp"

using namespace csx::model;

namespace {

using csx::testing::shipped_costs;
using csx::testing::shipped_model;

double rel(double a, double b) {
  return std::fabs(a - b) / b;
}

}  // namespace

// Published parameter counts.
TEST(Parameters, Gpt3_175B_BrownEtAl2020) {
  EXPECT_LT(rel(static_cast<double>(shipped_costs("gpt3_175b").parameters()), 174.6e9), 0.01);
}
TEST(Parameters, Llama2_7B_TouvronEtAl2023) {
  EXPECT_LT(rel(static_cast<double>(shipped_costs("llama2_7b").parameters()), 6.74e9), 0.01);
}
TEST(Parameters, Llama3_8B_MetaModelCard) {
  EXPECT_LT(rel(static_cast<double>(shipped_costs("llama3_8b").parameters()), 8.03e9), 0.01);
}
TEST(Parameters, BertLarge_DevlinEtAl2019) {
  EXPECT_LT(rel(static_cast<double>(shipped_costs("bert_large_msl128").parameters()), 335e6), 0.02);
}
TEST(Parameters, ResNet50_HeEtAl2016) {
  // torchvision's ResNet-50: 25,557,032 parameters.
  EXPECT_LT(rel(static_cast<double>(shipped_costs("resnet50").parameters()), 25.557e6), 0.001);
}
TEST(Parameters, Mixtral8x7B_JiangEtAl2024) {
  EXPECT_LT(rel(static_cast<double>(shipped_costs("mixtral_8x7b").parameters()), 46.7e9), 0.01);
}

// Narayanan et al. 2021 (SC'21), eq. 3: training FLOPs per iteration with full activation
// recomputation = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)); without recomputation the same
// counting gives 72 B s l h^2 (1 + s/(6h) + V/(12 l h)).
TEST(Flops, Gpt3MatchesNarayananEq3) {
  for (const char* stem : {"gpt3_xl", "gpt3_2p7b", "gpt3_6p7b", "gpt3_13b", "gpt3_175b"}) {
    const auto spec = shipped_model(stem);
    const auto c = layer_costs(spec);
    const auto& st = spec.main_stack();
    const double B = 1536, s = 2048, l = static_cast<double>(st.num_layers),
                 h = static_cast<double>(st.hidden_size), V = 50257;
    const double eq3 = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
    const double no_recompute = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
    EXPECT_LT(rel(B * c.train_flops_per_sample(true), eq3), 1e-3) << stem;
    EXPECT_LT(rel(B * c.train_flops_per_sample(false), no_recompute), 1e-3) << stem;
    EXPECT_NEAR(c.train_flops_per_sample(false), 3 * c.forward_flops_per_sample(),
                1e-6 * c.forward_flops_per_sample());
  }
}

// Korthikanti et al. 2022, table 2 (no parallelism, nothing recomputed) keeps
// s b h (34 + 5 a s / h) bytes per transformer layer: attention 11sbh (QKV input 2, Q K 4, V 2,
// output projection input 2, dropout mask 1) + 5as^2b, MLP 19sbh (input 2, GeLU input 8, GeLU
// output 8, mask 1), two norms' inputs 4sbh. Not kept, as an elementwise op rebuilds them: the
// QKV and MLP inputs (the norms' outputs, 2 + 2), the GeLU output (8) and both masks (1 + 1):
// 34 - 14 = 20.
TEST(Activations, KorthikantiTable2LessElementwise) {
  for (const char* stem : {"gpt3_xl", "gpt3_175b", "gpt2_small", "bert_large_msl512"}) {
    const auto spec = shipped_model(stem);
    const auto c = layer_costs(spec);
    const auto& st = spec.main_stack();
    const double s = static_cast<double>(spec.seq_len), h = static_cast<double>(st.hidden_size),
                 a = static_cast<double>(st.num_heads), b = 1;
    const double expected = s * b * h * (20 + 5 * a * s / h);
    for (const auto& L : c.layers) {
      if (L.kind == LayerKind::kBlock) {
        EXPECT_DOUBLE_EQ(L.activation_bytes, expected) << stem;
        EXPECT_DOUBLE_EQ(L.kept_activation_bytes(0), 20 * s * b * h) << stem;
        // kept_bytes_per_attention_score 2: the 16-bit scores of a heads x s x s too.
        EXPECT_DOUBLE_EQ(L.kept_activation_bytes(2), 20 * s * b * h + 2 * a * s * s) << stem;
      }
    }
  }
}

// DiT adaLN-Zero (Peebles & Xie 2023): y = x + alpha * o for the attention and the FFN branch,
// so alpha's gradient needs each branch output o (a product's result, 2sh each): 20sh + 4sh.
TEST(Activations, DitKeepsItsGatedBranchOutputs) {
  const auto spec = shipped_model("dit_2b");
  const auto& st = spec.main_stack();
  ASSERT_TRUE(st.adaptive_norm);
  const double s = static_cast<double>(st.tokens), h = static_cast<double>(st.hidden_size);
  EXPECT_EQ(st.filter_size, 4 * st.hidden_size);
  for (const auto& L : layer_costs(spec).layers) {
    if (L.kind == LayerKind::kBlock) {
      EXPECT_DOUBLE_EQ(L.kept_activation_bytes(0), 24 * s * h);
    }
  }
}

// Llama-style models: SwiGLU has three FFN matrices, GQA shrinks K and V.
TEST(Layers, SwiGluAndGqa) {
  const auto spec = shipped_model("llama3_8b");
  EXPECT_EQ(spec.main_stack().num_kv_heads, 8);
  EXPECT_TRUE(spec.main_stack().gated_ffn);
  const auto c = layer_costs(spec);
  const double h = 4096, f = 14336, kv = 8 * 128;
  // q + k + v + o + 3 FFN matrices + 2 RMSNorm gains.
  EXPECT_EQ(c.layers[1].parameters,
            static_cast<std::int64_t>(h * h + 2 * h * kv + h * h + 3 * h * f + 2 * h));
  EXPECT_DOUBLE_EQ(c.layers[1].weight_bytes, 2.0 * static_cast<double>(c.layers[1].parameters));
}

// Every shared Model Zoo file loads, in both layouts.
TEST(Loading, EveryModelZooFile) {
  namespace fs = std::filesystem;
  int n = 0;
  for (const auto& dir :
       fs::directory_iterator(std::string(CSXSIM_SOURCE_DIR) + "/../shared/modelzoo")) {
    if (!dir.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(dir.path())) {
      const auto spec = load_model(f.path().string());
      EXPECT_GT(layer_costs(spec).parameters(), 0) << f.path();
      ++n;
    }
  }
  EXPECT_GE(n, 14);
}

TEST(Loading, SequenceLengthFromDataloaderAndOverride) {
  const auto dir = std::string(CSXSIM_SOURCE_DIR) + "/../shared/modelzoo/";
  EXPECT_EQ(load_model(dir + "release-2.3.0/bert_large_MSL128.yaml").seq_len, 128);
  EXPECT_EQ(load_model(dir + "release-2.10.0/params_gpt3_xl.yaml").seq_len, 2048);
  EXPECT_EQ(load_model(dir + "release-2.10.0/params_gpt3_xl.yaml", 1024).seq_len, 1024);
  EXPECT_EQ(load_model(dir + "release-2.10.0/params_vit_base_patch_16_imagenet_1k.yaml").seq_len,
            197);
  EXPECT_EQ(load_model(dir + "release-2.3.0/params_gpt2_small.yaml").name, "gpt2");
}
