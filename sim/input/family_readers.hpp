// One reader per kind of family: each fills a ModelSpec from the family's Model Zoo keys.
// Each throws InputError naming the file, key and value for a missing or malformed size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "input/yaml_block.hpp"
#include "model/model_spec.hpp"

namespace csx::model {

struct FamilyInput {
  const io::Block& model;               // the model block
  std::optional<io::Block> train_data;  // the train dataloader block, if any
  const std::string& file;
  std::optional<std::int64_t> seq_len;  // --seq-len
};

void read_decoder(const FamilyInput& in, ModelSpec& s);                // read_language.cpp
void read_encoder(const FamilyInput& in, ModelSpec& s);                // read_language.cpp
void read_encoder_decoder(const FamilyInput& in, ModelSpec& s);        // read_language.cpp
void read_vision_transformer(const FamilyInput& in, ModelSpec& s);     // read_vision.cpp
void read_diffusion_transformer(const FamilyInput& in, ModelSpec& s);  // read_vision.cpp
void read_multimodal(const FamilyInput& in, ModelSpec& s);             // read_vision.cpp
void read_resnet(const FamilyInput& in, ModelSpec& s);                 // read_vision.cpp
void read_mlp(const FamilyInput& in, ModelSpec& s);                    // read_vision.cpp

}  // namespace csx::model
