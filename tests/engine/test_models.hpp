// Synthetic models and comparisons shared by the engine tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "model/layer_costs.hpp"

namespace csx::test {

// A model of L identical blocks: w bytes of weights, f forward FLOP per sample each.
inline model::ModelCosts uniform_model(int L, double w, double f) {
  model::ModelCosts c;
  for (int i = 0; i < L; ++i) {
    model::Layer layer;
    layer.name = "layer." + std::to_string(i);
    layer.kind = model::LayerKind::kBlock;
    layer.parameters = static_cast<std::int64_t>(w / 2);
    layer.weight_bytes = w;
    layer.forward_flops = f;
    layer.matmuls = {{1000, 1000, f}};
    layer.boundary_bytes = 1;
    c.layers.push_back(layer);
  }
  c.num_blocks = L;
  return c;
}

// |a - b| / |b|
inline double rel(double a, double b) {
  return std::fabs(a - b) / std::fabs(b);
}

}  // namespace csx::test
