// Every model family of the Cerebras Model Zoo (Releases 2.3 to 2.10): how csxsim reads it, or
// why it refuses it. The README's family table is this table.
#pragma once

#include <string_view>
#include <vector>

#include "model/model_spec.hpp"

namespace csx::model {

struct Family {
  std::string_view name;       // Model Zoo model name (`model.name`) or folder
  Architecture architecture;   // how it is modelled
  bool modelled;               // false: refused with `reason`
  std::string_view structure;  // what is modelled (README table), or the refusal reason
};

// All families, modelled and refused.
[[nodiscard]] const std::vector<Family>& model_families();

// The family of this name, or nullptr.
[[nodiscard]] const Family* find_family(std::string_view name);

// The names of all families (for did-you-mean).
[[nodiscard]] std::vector<std::string> family_names();

}  // namespace csx::model
