// describe: a model's costs on a platform, and its JSON.
#include "app/describe.hpp"

#include <fmt/format.h>

#include "app/data_folder.hpp"
#include "app/platform_setup.hpp"
#include "input/platform_loader.hpp"
#include "report/results_json.hpp"

namespace csx::model {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Stack, name, num_layers, hidden_size, num_heads, num_kv_heads,
                                   head_dim, causal, sliding_window, position, filter_size,
                                   nonlinearity, parallel_attention_ffn, num_experts, top_k,
                                   num_shared_experts, tokens, trainable)
}  // namespace csx::model

namespace csx::app {
namespace {

// Names in enum order (model::LayerKind, model::Architecture).
constexpr const char* kKindNames[] = {"embedding", "block", "head"};
constexpr const char* kArchitectureNames[] = {"decoder",
                                              "encoder",
                                              "encoder-decoder",
                                              "vision transformer",
                                              "diffusion transformer",
                                              "vision encoder + decoder",
                                              "CNN with batch norm",
                                              "fully connected"};

}  // namespace

const char* kind_name(model::LayerKind k) {
  return kKindNames[static_cast<int>(k)];
}
const char* architecture_name(model::Architecture a) {
  return kArchitectureNames[static_cast<int>(a)];
}

std::string attention_kind(const model::Stack& st) {
  if (st.num_kv_heads == 1 && st.num_heads > 1) return "multi-query";
  if (st.num_kv_heads < st.num_heads) return "grouped-query";
  return "multi-head";
}

Described describe(const std::string& file, const std::string& platform_name,
                   std::optional<std::int64_t> seq_len) {
  // Any file run accepts: a models/ file, a Model Zoo file, or a scenario naming a model.
  auto scenario = io::load_scenario(resolve_model_path(file), data_dir(), seq_len);
  print_warnings(scenario);
  auto platform = load_platform_given(platform_name, "--platform", platform_name, data_dir());
  auto costs = model::layer_costs(scenario.model);
  const Figures figures{model::max_fitting_micro_batch_size(costs, platform, model::Pass::kTrain),
                        model::memoryx_check(costs, platform), costs.train_flops_per_sample(false)};
  return {std::move(scenario), std::move(platform), std::move(costs), figures};
}

nlohmann::ordered_json describe_json(const Described& d) {
  const auto& [scenario, platform, costs, f] = d;
  const auto& spec = scenario.model;
  const auto& [max_mbs, mx, train_flops] = f;
  nlohmann::ordered_json j;
  j["model"] = spec.label;
  j["family"] = spec.name;
  j["family_from"] = spec.family_from;
  j["architecture"] = architecture_name(spec.architecture);
  j["platform"] = platform.name;
  j["seq_len"] = spec.seq_len;
  j["seq_len_from"] = spec.seq_len_from;
  j["modelled"] = spec.modelled;
  j["ignored_keys"] = spec.ignored_keys;
  j["warnings"] = scenario.warnings;
  auto& stacks = j["stacks"] = nlohmann::json::array();
  for (const auto& st : spec.stacks) {
    nlohmann::ordered_json one = nlohmann::json(st);
    one["attention"] = attention_kind(st);
    stacks.push_back(std::move(one));
  }
  j["parameters"] = costs.parameters();
  j["train_flops_per_sample"] = train_flops;
  j["train_flops_per_sample_with_recompute"] = costs.train_flops_per_sample(true);
  j["forward_flops_per_sample"] = costs.forward_flops_per_sample();
  j["weight_bytes_per_pass"] = costs.weight_bytes_per_pass();
  j["activation_bytes_per_sample"] =
      costs.kept_activation_bytes_per_sample(platform.kept_bytes_per_attention_score);
  j["max_fitting_micro_batch_size"] = max_mbs;
  j["max_micro_batch_size_without_recompute"] =
      model::max_micro_batch_size_without_recompute(costs, platform);
  j["memoryx_required_bytes"] = mx.required_bytes;
  j["memoryx_fits"] = mx.fits;
  auto& layers = j["layers"] = nlohmann::json::array();
  for (const auto& L : costs.layers)
    layers.push_back(
        nlohmann::ordered_json{{"name", L.name},
                               {"kind", kind_name(L.kind)},
                               {"parameters", L.parameters},
                               {"weight_bytes", L.weight_bytes},
                               {"forward_flops_per_sample", L.forward_flops},
                               {"activation_bytes_per_sample",
                                L.kept_activation_bytes(platform.kept_bytes_per_attention_score)}});
  return j;
}

}  // namespace csx::app
