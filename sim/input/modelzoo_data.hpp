// What csxsim knows of the Cerebras Model Zoo, as data (sim/input/modelzoo.json, compiled in):
// every family of Releases R_1.7.0 and 2.3.0 to 2.10.0 and how it is modelled or why it is refused
// (the family table of docs/modelzoo.md#model-zoo-files), and the keys each family's model block
// and the dataloader blocks accept, from the Model Zoo's config classes (each entry names its
// files) plus every key the shipped configs of those releases use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model_spec.hpp"

namespace csx::model {

struct Family {
  std::string name;           // Model Zoo model name (`model.name`) or folder
  Architecture architecture;  // how it is modelled
  bool modelled = true;       // false: refused with `structure` as the reason
  // What is modelled (the family table, docs/modelzoo.md#model-zoo-files), or the refusal reason.
  std::string structure;
};

// All families, modelled and refused.
[[nodiscard]] const std::vector<Family>& model_families();
// The family of this name, or nullptr.
[[nodiscard]] const Family* find_family(const std::string& name);
// The names of all families (for did-you-mean).
[[nodiscard]] std::vector<std::string> family_names();

struct FamilyKeys {
  std::string family;             // Model Zoo model name, e.g. "llama", "bert/classifier"
  std::string source;             // where the keys come from: config class file(s) and release
  std::vector<std::string> keys;  // top-level keys of the model block
};

// One entry per family (and per "family:block" for a nested block: "mixtral:moe" holds the
// keys under model.moe), sorted by family. "gpt-neox" is the registry name of gpt_neox.
[[nodiscard]] const std::vector<FamilyKeys>& modelzoo_model_keys();

// Keys of dataloader blocks (train_input, eval_input, train_dataloader, val_dataloader).
[[nodiscard]] const std::vector<std::string>& modelzoo_dataloader_keys();

struct VocabFile {
  std::string
      file;  // the end of a vocab_file path, e.g. "google_research_uncased_L-12_H-768_A-12.txt"
  std::int64_t size = 0;  // its entries
  std::string source;     // the Model Zoo config that states this size for the same file
};

// The vocabulary file of known size that `path` (a vocab_file value) names, or nullptr. R_1.7.0
// files name the file instead of a vocab_size; the Model Zoo counts its lines.
[[nodiscard]] const VocabFile* known_vocab_file(const std::string& path);

}  // namespace csx::model
