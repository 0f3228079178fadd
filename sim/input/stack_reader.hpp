// Shared reads of Model Zoo model blocks: a transformer stack from its keys, and the sequence
// length a file trains with.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "input/yaml_block.hpp"
#include "model/model_spec.hpp"

namespace csx::model {

// Bounds that keep every count and product within 64-bit arithmetic; far above any model.
inline constexpr std::int64_t kMaxWidth = 1'000'000;      // hidden_size, filter_size, heads
inline constexpr std::int64_t kMaxLayers = 10'000;        // num_hidden_layers
inline constexpr std::int64_t kMaxVocab = 100'000'000;    // vocab_size, num_classes
inline constexpr std::int64_t kMaxSequence = 10'000'000;  // positions, sequence length, pixels

// Key names of one stack in a block (T5 and the Transformer use d_model, d_ff, ...).
struct StackKeys {
  std::string hidden = "hidden_size";
  std::string layers = "num_hidden_layers";
  std::string heads = "num_heads";
  std::string filter = "filter_size";
  std::string nonlinearity = "nonlinearity";
};

// Family defaults the keys may override.
struct StackDefaults {
  bool biases = true;
  bool layer_norm = true;
  bool parallel = false;
  std::string position = "learned";
  std::string nonlinearity = "gelu";
};

// Reads a stack: sizes, heads (num_kv_groups, multi-query, attention_inner_dim or d_kv),
// nonlinearity, biases, norm type, sliding window, MoE. Records what it modelled in `spec`.
// Throws InputError for a missing or malformed size.
[[nodiscard]] Stack read_stack(const io::Block& m, const StackKeys& keys,
                               const StackDefaults& defaults, std::string name, ModelSpec& spec);

// A size the model block keeps (`key`), else the train input block (R_1.7.0 TensorFlow files keep
// vocab_size, src_vocab_size and extra_ids under train_input, where the Model Zoo's TF models
// read them), else, when `vocab_file_keys` is not empty, the size of a known vocabulary file the
// input block names under one of them (modelzoo_data.hpp; the Model Zoo counts its lines).
// Notes a size not read from the model block in `spec.modelled`. Throws InputError for a
// malformed value, or the model block's missing-key error when none gives the size.
[[nodiscard]] std::int64_t model_or_input_size(const io::Block& m,
                                               const std::optional<io::Block>& input,
                                               const std::string& key,
                                               const std::vector<std::string>& vocab_file_keys,
                                               std::int64_t min, std::int64_t max, ModelSpec& spec);
// The same for an optional size: nullopt when neither block has it.
[[nodiscard]] std::optional<std::int64_t> model_or_input_size_opt(
    const io::Block& m, const std::optional<io::Block>& input, const std::string& key,
    std::int64_t min, std::int64_t max);

// Where a sequence length comes from.
struct SeqLen {
  std::int64_t value = 0;
  std::string from;  // e.g. "train_dataloader.max_sequence_length", "--seq-len"
};

// The sequence length the file trains with: --seq-len; else `key` of the train dataloader;
// else an MSL the file name or its header comment states ("msl_8k", "MSL 1K"); else
// `fallback` (max_position_embeddings) under `fallback_from`.
[[nodiscard]] SeqLen training_seq_len(const std::optional<io::Block>& data, const std::string& key,
                                      const std::string& file, std::optional<std::int64_t> cli,
                                      std::int64_t fallback, const std::string& fallback_from);

}  // namespace csx::model
