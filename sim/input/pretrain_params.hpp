// Fine-tuning files that extend their pretraining config (model.pretrain_params_path, the
// TensorFlow BERT heads of Model Zoo Release R_1.7.0).
#pragma once

#include <yaml-cpp/yaml.h>
#include <string>
#include <vector>

#include "input/yaml_block.hpp"

namespace csx::model {

// The model block `model` of `file` stands for: when it names a pretraining config
// (pretrain_params_path), that file's model block (itself resolved the same way) with this
// block's own keys over it, minus the pretraining file's use_vsl, as the Model Zoo's
// load_pretrain_model_params (transformers/tf/bert/utils.py, R_1.7.0) merges them; else the
// block itself. A relative path is resolved as the Model Zoo does, against the model's folder
// (the folder holding the file's configs/ folder, where the model's utils.py sits), else
// against the file's own folder. Adds a line naming the pretraining file to `notes` and the
// pretraining file's duplicate-key warnings to `warnings`, and the path of every file it
// extends to `files` (so that no output overwrites one).
// Throws InputError naming both files for a missing or unreadable file, a file without a model
// block or a circular reference (a file that leads back to itself).
[[nodiscard]] YAML::Node with_pretraining(const io::Block& model, const std::string& file,
                                          std::vector<std::string>& notes,
                                          std::vector<std::string>& warnings,
                                          std::vector<std::string>& files);

}  // namespace csx::model
