// The family table. Structures follow each family's Model Zoo model class (Cerebras Model Zoo,
// src/cerebras/modelzoo/models/<kind>/<family>/) and the paper it implements.
#include "input/family_catalog.hpp"

#include <string>

namespace csx::model {

const std::vector<Family>& model_families() {
  using A = Architecture;
  static const std::vector<Family> families{
      {"gpt2", A::kDecoder, true, "pre-norm decoder, learned positions, tied head"},
      {"gpt3", A::kDecoder, true,
       "GPT-2 structure (muP and sparsity files: same shapes; sparsity not modelled)"},
      {"gptj", A::kDecoder, true, "parallel attention and FFN, rotary, untied head with bias"},
      {"gpt_neox", A::kDecoder, true, "parallel attention and FFN with two norms, rotary"},
      {"gpt-neox", A::kDecoder, true, "the Model Zoo's registry name of gpt_neox"},
      {"llama", A::kDecoder, true, "RMSNorm, SwiGLU, rotary, grouped-query attention"},
      {"mistral", A::kDecoder, true, "Llama structure with sliding-window attention"},
      {"mixtral", A::kDecoder, true, "Mistral structure with routed (top-k) and shared experts"},
      {"falcon", A::kDecoder, true, "parallel blocks, multi-query or grouped attention, rotary"},
      {"bloom", A::kDecoder, true, "ALiBi, embedding LayerNorm, tied head"},
      {"btlm", A::kDecoder, true, "ALiBi, SwiGLU, muP (shapes as GPT-3)"},
      {"jais", A::kDecoder, true, "ALiBi, SwiGLU, tied head"},
      {"mpt", A::kDecoder, true, "ALiBi, bias-free LayerNorm and projections"},
      {"starcoder", A::kDecoder, true, "multi-query attention, learned positions"},
      {"santacoder", A::kDecoder, true, "multi-query attention, learned positions"},
      {"gemma2", A::kDecoder, true,
       "GeGLU, sandwich norms, grouped-query attention of attention_inner_dim, sliding window "
       "on every other block"},
      {"dpo", A::kDecoder, true,
       "its policy model on chosen and rejected sequences, plus the reference model's forward "
       "pass unless reference_free"},
      {"bert", A::kEncoder, true, "encoder, MLM head on the masked tokens, NSP head"},
      {"bert/classifier", A::kEncoder, true, "encoder, pooler, sequence classifier"},
      {"bert/token_classifier", A::kEncoder, true, "encoder, per-token classifier"},
      {"bert/extractive_summarization", A::kEncoder, true,
       "encoder, a score per sentence marker (max_cls_tokens)"},
      {"esm2", A::kEncoder, true, "encoder with rotary positions, MLM head, no NSP"},
      {"esm2/classification", A::kEncoder, true, "ESM-2 encoder with a sequence classifier"},
      {"dpr", A::kEncoder, true, "two BERT encoders: question and passage"},
      {"t5", A::kEncoderDecoder, true,
       "encoder and decoder stacks, cross-attention, relative position bias"},
      {"transformer", A::kEncoderDecoder, true,
       "encoder and decoder stacks, cross-attention, fixed positions (Vaswani et al.)"},
      {"vision_transformer", A::kVisionTransformer, true, "patch embedding, encoder, classifier"},
      {"dino", A::kVisionTransformer, true,
       "student ViT on global and local crops, EMA teacher forward on global crops, DINO and "
       "iBOT heads"},
      {"dit", A::kDiffusionTransformer, true,
       "latent patches, adaLN-Zero blocks, timestep and label embedders, noise prediction "
       "(the frozen VAE encoder runs off the wafer: latents are precomputed)"},
      {"llava", A::kMultimodal, true,
       "ViT image encoder, two-layer projector, decoder LM; freeze patterns honoured"},
      {"multimodal_simple", A::kMultimodal, true,
       "ViT image encoder, projector, decoder LM; freeze patterns honoured"},
      {"fc_mnist", A::kMlp, true, "fully connected layers on 28 x 28 images"},
      {"resnet", A::kResNet, true, "ResNet-50 with batch normalization (csxsim's own model)"},
      {"layers_api_demo", A::kDecoder, false,
       "a demonstration of the Model Zoo layers API with its own synthetic data, not a model "
       "architecture the Model Zoo documents; its blocks are not described by its keys"},
  };
  return families;
}

const Family* find_family(std::string_view name) {
  for (const auto& f : model_families())
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const auto& f : model_families()) names.emplace_back(f.name);
  return names;
}

}  // namespace csx::model
