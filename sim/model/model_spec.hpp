// A model's shape, in the Cerebras Model Zoo's field names (trainer.init.model / model).
#pragma once

#include <cstdint>
#include <string>

namespace csx::model {

// How the network is built; decides the layer list.
enum class Architecture {
  kDecoder,            // GPT-2/3, Llama, Mistral, Mixtral, Falcon: causal LM
  kEncoder,            // BERT: encoder + MLM head
  kVisionTransformer,  // ViT: patch embedding + encoder + classifier
  kResNet,             // CNN with batch normalization
};

struct ModelSpec {
  std::string name;    // Model Zoo family (`gpt3`, `llama`, `bert`, ...)
  std::string label;   // display name: the file's stem
  std::string source;  // the file it came from
  Architecture architecture = Architecture::kDecoder;

  std::int64_t vocab_size = 0;
  std::int64_t hidden_size = 0;        // h
  std::int64_t num_hidden_layers = 0;  // l
  std::int64_t num_heads = 0;          // a
  std::int64_t num_kv_heads = 0;       // = num_heads unless GQA/MQA (extra_attention_params.num_kv_groups)
  std::int64_t filter_size = 0;        // FFN inner width f
  std::int64_t max_position_embeddings = 0;
  std::int64_t seq_len = 0;            // s: tokens per sample (MSL)
  std::int64_t head_tokens = 0;  // tokens the output head scores (BERT: max_predictions_per_seq)
  std::string nonlinearity = "gelu";
  bool gated_ffn = false;  // swiglu/geglu/reglu: three FFN matrices
  bool share_embedding_weights = false;
  std::string position_embedding_type = "learned";
  bool biases = true;  // linear-layer biases (GPT-2/3, BERT, ViT); none in Llama-style models
  std::int64_t num_experts = 1;  // MoE experts per layer (moe.num_experts)
  std::int64_t top_k = 1;        // experts each token visits (moe.top_k)

  // Vision (ViT, ResNet).
  std::int64_t image_size = 0;    // pixels per side
  std::int64_t patch_size = 0;    // ViT patch side (pixels)
  std::int64_t num_channels = 3;
  std::int64_t num_classes = 0;
  std::int64_t depth = 0;  // ResNet depth (50)

  [[nodiscard]] bool transformer() const { return architecture != Architecture::kResNet; }
  [[nodiscard]] bool batch_norm() const { return architecture == Architecture::kResNet; }
  [[nodiscard]] std::int64_t head_dim() const { return hidden_size / num_heads; }
};

}  // namespace csx::model
