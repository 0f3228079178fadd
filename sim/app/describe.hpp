// `csxsim describe` as data: a model on a platform with its parameters, FLOPs, streamed bytes,
// activations and memory fit, and the object its --json prints (the Python module returns it,
// docs/python.md#python).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "input/scenario.hpp"
#include "model/layer_costs.hpp"
#include "model/memory_model.hpp"
#include "platform/platform_spec.hpp"

namespace csx::app {

// What describe reports besides the layers.
struct Figures {
  std::int64_t max_mbs;  // largest micro_batch_size that fits (samples)
  model::MemoryXCheck mx;
  double train_flops;  // FLOP per sample, no recompute
};

// A model with its costs on a platform.
struct Described {
  io::Scenario scenario;
  platform::PlatformSpec platform;
  model::ModelCosts costs;
  Figures figures;
};

// The model of `file` (resolve_model_path: any file run accepts, or a models/ name; its warnings
// on stderr) on `platform_name` (name or file), at `seq_len` tokens when given. Throws as the
// loaders do.
[[nodiscard]] Described describe(const std::string& file, const std::string& platform_name,
                                 std::optional<std::int64_t> seq_len);

// The object `describe --json` prints (docs/cli.md#json-output).
[[nodiscard]] nlohmann::ordered_json describe_json(const Described& d);

// Names of a layer kind, an architecture and a stack's attention, as describe prints them.
[[nodiscard]] const char* kind_name(model::LayerKind k);
[[nodiscard]] const char* architecture_name(model::Architecture a);
[[nodiscard]] std::string attention_kind(const model::Stack& st);

}  // namespace csx::app
