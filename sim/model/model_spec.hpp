// A model's shape: the family's structure reduced to stacks of identical transformer blocks,
// plus what comes before (embeddings) and after (the head). Read from Model Zoo field names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace csx::model {

// How the network is built; decides the layer list.
enum class Architecture {
  kDecoder,               // causal LM: GPT-2/3, GPT-J, NeoX, Llama, Mistral, Falcon, BLOOM, ...
  kEncoder,               // BERT, ESM-2, DPR: bidirectional encoder and a task head
  kEncoderDecoder,        // T5, the Transformer: encoder stack, decoder stack with cross-attention
  kVisionTransformer,     // ViT, DINO: patch embedding, encoder, classifier or projection head
  kDiffusionTransformer,  // DiT: latent patches, adaLN-modulated blocks, noise prediction
  kMultimodal,            // LLaVA-style: vision encoder, projector, decoder LM
  kResNet,                // CNN with batch normalization
  kMlp,                   // fully connected network (fc_mnist)
};

// What the last layer computes.
enum class HeadKind {
  kLanguageModel,    // logits over the vocabulary for every scored token
  kMaskedLm,         // BERT/ESM-2 MLM transform + logits on the masked tokens (+ NSP)
  kClassifier,       // pooled representation -> num_classes (BERT classifier, ViT)
  kTokenClassifier,  // every token -> num_classes (NER)
  kSentenceScorer,   // one score per sentence marker (BERT extractive summarization)
  kEmbedding,        // pooled vector only (DPR)
  kDinoProjection,   // DINO projection MLP to a large prototype layer
  kNoisePrediction,  // DiT: tokens back to patches (noise and variance)
};

// A run of identical transformer blocks.
struct Stack {
  std::string name;  // "decoder", "encoder", "vision", "text"
  std::int64_t num_layers = 0;
  std::int64_t hidden_size = 0;   // h
  std::int64_t num_heads = 0;     // a
  std::int64_t num_kv_heads = 0;  // = num_heads, fewer for grouped or multi-query attention
  std::int64_t head_dim = 0;      // attention width per head (attention_inner_dim / heads, d_kv)
  std::int64_t filter_size = 0;   // FFN inner width f
  std::int64_t tokens = 0;        // tokens per sample this stack processes
  bool causal = true;
  std::int64_t sliding_window = 0;   // keys each query sees at most (0: the whole sequence)
  std::int64_t windowed_every = 1;   // 1: every block windowed; 2: every other block (Gemma 2)
  std::string position = "learned";  // learned, fixed, rotary, alibi, relative, none
  std::string nonlinearity = "gelu";
  bool gated_ffn = false;                   // swiglu/geglu/reglu: three FFN matrices
  bool biases = true;                       // linear-layer biases
  bool layer_norm = true;                   // LayerNorm (gain + bias) or RMSNorm (gain only)
  std::int64_t norms_per_block = 2;         // 4 for Gemma 2's sandwich norms, 1 for parallel blocks
  bool parallel_attention_ffn = false;      // GPT-J, NeoX, Falcon: attention and FFN side by side
  std::int64_t num_experts = 1;             // routed experts per block (moe.num_experts)
  std::int64_t top_k = 1;                   // routed experts each token visits
  std::int64_t num_shared_experts = 0;      // experts every token visits (moe.num_shared_experts)
  std::int64_t cross_attention_tokens = 0;  // encoder tokens a decoder block attends to (T5)
  bool adaptive_norm = false;  // DiT adaLN-Zero: 6h modulation values from the conditioning
  double keys_per_query = 0;   // mean keys a query attends without a window (0: tokens); DINO's
                               // crops attend within each crop
  std::int64_t forward_only_tokens = 0;  // tokens a frozen twin runs forward (DPO reference
                                         // model, DINO teacher); same weights shape
  bool trainable = true;                 // false: frozen (`freeze` patterns)

  [[nodiscard]] std::int64_t attention_width() const { return num_heads * head_dim; }
  [[nodiscard]] std::int64_t kv_width() const { return num_kv_heads * head_dim; }
};

struct ModelSpec {
  std::string name;                  // Model Zoo family (`gpt3`, `llama`, `bert/classifier`, ...)
  std::string label;                 // display name: the file's stem
  std::string source;                // the file it came from
  std::vector<std::string> extends;  // files its model block extends (pretrain_params_path)
  std::string family_from;           // how the family was found: "model.name", "file path", "keys"
  Architecture architecture = Architecture::kDecoder;
  HeadKind head = HeadKind::kLanguageModel;

  std::vector<Stack> stacks;  // in forward order (encoder before decoder, vision before text)

  std::int64_t vocab_size = 0;
  std::int64_t max_position_embeddings = 0;
  std::int64_t seq_len = 0;  // tokens per sample (MSL): what throughput in tokens/s counts
  std::string seq_len_from;  // where seq_len came from, e.g. "train_dataloader.max_sequence_length"
  std::int64_t head_tokens = 0;  // tokens the output head scores (BERT: max_predictions_per_seq)
  std::int64_t sequences_per_sample = 1;  // DPO: chosen + rejected; DPR: question + passages
  bool share_embedding_weights = false;
  bool embedding_layer_norm = false;  // BLOOM, BERT: a norm right after the embedding
  bool final_norm = true;             // a norm after the last block (not in post-norm BERT)
  std::int64_t segment_vocab = 0;     // BERT token-type embeddings (2)
  std::int64_t embedding_tables = 1;  // 2: separate tables (DPR encoders, unshared T5 sides)
  std::int64_t num_classes = 0;       // classifier outputs

  // Vision.
  std::int64_t image_size = 0;  // pixels per side
  std::int64_t patch_size = 0;  // patch side (pixels, or latent cells for DiT)
  std::int64_t num_channels = 3;
  std::int64_t depth = 0;                     // ResNet depth (50); fc_mnist: hidden layers
  std::int64_t mlp_width = 0;                 // fc_mnist hidden width
  std::int64_t image_tokens = 0;              // multimodal: image tokens fed to the decoder
  std::vector<std::int64_t> projector_units;  // multimodal: widths of the projector layers
  std::int64_t projection_output = 0;         // DINO prototypes
  std::int64_t projection_hidden = 0;         // DINO head MLP width
  std::int64_t projection_bottleneck = 0;     // DINO head bottleneck
  std::int64_t projection_layers = 0;         // DINO head MLP layers
  std::int64_t projection_heads = 0;          // DINO heads trained (the teacher's run forward)

  // What the reading found, for `describe` and warnings.
  std::vector<std::string> modelled;      // features modelled, e.g. "grouped-query attention"
  std::vector<std::string> ignored_keys;  // Model Zoo keys present that do not change costs
  std::vector<std::string> warnings;      // keys the Model Zoo does not define (did-you-mean), LoRA

  [[nodiscard]] bool transformer() const {
    return architecture != Architecture::kResNet && architecture != Architecture::kMlp;
  }
  [[nodiscard]] bool batch_norm() const { return architecture == Architecture::kResNet; }
  [[nodiscard]] const Stack& main_stack() const { return stacks.back(); }
};

}  // namespace csx::model
