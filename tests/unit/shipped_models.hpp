// The shipped model files (models/STEM.yaml) as the unit tests read them.
#pragma once

#include <string>

#include "input/model_loader.hpp"
#include "model/layer_costs.hpp"

namespace csx::testing {

// models/STEM.yaml read; throws what model::load_model throws.
inline model::ModelSpec shipped_model(const std::string& stem) {
  return model::load_model(std::string(CSXSIM_SOURCE_DIR) + "/models/" + stem + ".yaml");
}

// The layer costs of models/STEM.yaml.
inline model::ModelCosts shipped_costs(const std::string& stem) {
  return model::layer_costs(shipped_model(stem));
}

}  // namespace csx::testing
