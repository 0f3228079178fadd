// Keys the Cerebras Model Zoo defines for each family's model block and for dataloader blocks.
#pragma once
#include <string_view>
#include <vector>
namespace csx::model {
struct FamilyKeys {
  std::string_view family;             // Model Zoo model name, e.g. "llama", "bert/classifier"
  std::string_view source;             // where the keys come from: config class file(s) and release
  std::vector<std::string_view> keys;  // top-level keys of the model block
};
// One entry per family (and per "family:subblock" for nested blocks), sorted by family.
// Nested entries: "family:block" holds the keys directly under model.<block> (e.g. "mixtral:moe",
// "llava:image_model"); a dotted path ("dino:heads.head_model") goes one level deeper. For a block
// that is a list of maps (dino heads, multimodal_simple image_models) the keys are those of each
// element. "gpt-neox" is the registry name; "gpt_neox" is an identical alias.
[[nodiscard]] const std::vector<FamilyKeys>& modelzoo_model_keys();
// Keys of dataloader blocks (train_input, eval_input, train_dataloader, val_dataloader).
[[nodiscard]] const std::vector<std::string_view>& modelzoo_dataloader_keys();
}  // namespace csx::model
