// Reads a ModelSpec from a Model Zoo params file (Trainer layout: trainer.init.model; legacy
// layout: model) or from a models/*.yaml file that uses the same field names.
#pragma once

#include <yaml-cpp/yaml.h>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/model_spec.hpp"

namespace csx::model {

// The Model Zoo families csxsim knows.
[[nodiscard]] const std::vector<std::string>& known_families();

// Reads the model block of an already loaded document. `seq_len` overrides the sequence length
// (default: the dataloader's max_sequence_length, else max_position_embeddings).
// Throws InputError naming the file, key and value for a missing required field, a non-positive
// size, heads that do not divide hidden_size, an unknown family or a typo in a key.
[[nodiscard]] ModelSpec read_model(const YAML::Node& root, const std::string& file,
                                   std::optional<std::int64_t> seq_len = std::nullopt);

// The `trainer` block of a Trainer-layout document (the first entry when it is a list of
// trainers). Throws InputError naming the file when it is not a mapping.
[[nodiscard]] YAML::Node trainer_node(const YAML::Node& root, const std::string& file);

// Loads a file and reads its model block.
[[nodiscard]] ModelSpec load_model(const std::string& file,
                                   std::optional<std::int64_t> seq_len = std::nullopt);

}  // namespace csx::model
