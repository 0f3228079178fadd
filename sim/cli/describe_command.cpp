// `csxsim describe`: a model's parameters, FLOPs, streamed bytes, activations and memory fit.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "app/data_folder.hpp"
#include "app/job_options.hpp"
#include "cli/commands.hpp"
#include "cli/json_views.hpp"
#include "cli/option_descriptions.hpp"
#include "input/model_loader.hpp"
#include "input/platform_loader.hpp"
#include "input/scenario.hpp"
#include "model/layer_costs.hpp"
#include "model/memory_model.hpp"
#include "report/results_json.hpp"

namespace csx::model {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Stack, name, num_layers, hidden_size, num_heads, num_kv_heads,
                                   head_dim, causal, sliding_window, position, filter_size,
                                   nonlinearity, parallel_attention_ffn, num_experts, top_k,
                                   num_shared_experts, tokens, trainable)
}  // namespace csx::model

namespace csx::cli {
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

// What both outputs report besides the layers.
struct Figures {
  std::int64_t max_mbs;  // largest micro_batch_size that fits (samples)
  model::MemoryXCheck mx;
  double train_flops;  // FLOP per sample, no recompute
};

nlohmann::ordered_json to_json(const io::Scenario& scenario, const platform::PlatformSpec& platform,
                               const model::ModelCosts& costs, const Figures& f) {
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
  j["activation_bytes_per_sample"] = costs.kept_activation_bytes_per_sample();
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
                               {"activation_bytes_per_sample", L.kept_activation_bytes()}});
  return j;
}

void print_text(const io::Scenario& scenario, const platform::PlatformSpec& platform,
                const model::ModelCosts& costs, const Figures& f) {
  const auto& spec = scenario.model;
  const auto& [max_mbs, mx, train_flops] = f;

  fmt::print("model {} ({}, {}) from {}\n", spec.label, spec.name,
             architecture_name(spec.architecture), spec.source);
  fmt::print("  family from {}; seq_len {} from {}\n", spec.family_from, spec.seq_len,
             spec.seq_len_from);
  for (const auto& st : spec.stacks)
    fmt::print(
        "  {}: {} layers, hidden {}, {} heads ({} attention, kv {}, head {}), ffn {} ({}), "
        "{} tokens{}{}\n",
        st.name, st.num_layers, st.hidden_size, st.num_heads, attention_kind(st), st.num_kv_heads,
        st.head_dim, st.filter_size, st.nonlinearity, st.tokens, st.causal ? ", causal" : "",
        st.trainable ? "" : ", frozen");
  if (spec.vocab_size > 0) fmt::print("  vocab {}\n", spec.vocab_size);
  if (!spec.modelled.empty()) fmt::print("  modelled: {}\n", fmt::join(spec.modelled, "; "));
  if (!spec.ignored_keys.empty())
    fmt::print("  ignored (no effect on cost or memory): {}\n", fmt::join(spec.ignored_keys, ", "));
  fmt::print("{:<44}{:>20}\n", "parameters", costs.parameters());
  fmt::print("{:<44}{:>20.4e}\n", "training FLOP per sample (model, no recompute)", train_flops);
  fmt::print("{:<44}{:>20.4e}\n", "training FLOP per sample (with recompute)",
             costs.train_flops_per_sample(true));
  fmt::print("{:<44}{:>20.4e}\n", "forward FLOP per sample", costs.forward_flops_per_sample());
  fmt::print("{:<44}{:>20.4e}\n", "weight bytes streamed per pass", costs.weight_bytes_per_pass());
  fmt::print("{:<44}{:>20.4e}\n", "activation bytes per sample (all kept)",
             costs.kept_activation_bytes_per_sample());
  // 0 samples means not even one sample fits: say "none".
  const auto size_or_none = [](std::int64_t mbs) {
    return mbs > 0 ? std::to_string(mbs) : std::string("none");
  };
  fmt::print("{:<44}{:>20}\n",
             fmt::format("largest micro_batch_size that fits ({})", platform.name),
             size_or_none(max_mbs));
  fmt::print("{:<44}{:>20}\n", fmt::format("largest without recompute ({})", platform.name),
             size_or_none(model::max_micro_batch_size_without_recompute(costs, platform)));
  fmt::print("{:<44}{:>17.1f} GB of {:.0f} GB{}\n", "MemoryX weights + optimizer state",
             mx.required_bytes / 1e9, mx.capacity_bytes / 1e9, mx.fits ? "" : " (does NOT fit)");
  fmt::print("\n{:<12} {:<10} {:>16} {:>16} {:>20} {:>22}\n", "layer", "kind", "parameters",
             "weight_bytes", "fwd_flops_per_sample", "activation_bytes_per_sample");
  for (const auto& L : costs.layers)
    fmt::print("{:<12} {:<10} {:>16} {:>16.4e} {:>20.4e} {:>22.4e}\n", L.name, kind_name(L.kind),
               L.parameters, L.weight_bytes, L.forward_flops, L.kept_activation_bytes());
}

// The model of `file` (resolve_model_path) on `platform_name`, with its figures.
struct Described {
  io::Scenario scenario;
  platform::PlatformSpec platform;
  model::ModelCosts costs;
  Figures figures;
};

Described describe(const std::string& file, const std::string& platform_name,
                   std::optional<std::int64_t> seq_len) {
  // Any file run accepts: a models/ file, a Model Zoo file, or a scenario naming a model.
  auto scenario = io::load_scenario(app::resolve_model_path(file), app::data_dir(), seq_len);
  app::print_warnings(scenario);
  auto platform = platform::load_platform(platform_name, app::data_dir());
  auto costs = model::layer_costs(scenario.model);
  const Figures figures{model::max_fitting_micro_batch_size(costs, platform, model::Pass::kTrain),
                        model::memoryx_check(costs, platform), costs.train_flops_per_sample(false)};
  return {std::move(scenario), std::move(platform), std::move(costs), figures};
}

}  // namespace

nlohmann::ordered_json describe_json(const std::string& file, const std::string& platform_name,
                                     const std::optional<std::string>& seq_len) {
  const auto d = describe(file, platform_name, app::optional_count(seq_len, "--seq-len"));
  return to_json(d.scenario, d.platform, d.costs, d.figures);
}

int describe_command(const Args& args) {
  const auto vm = parse_command(args, "describe");
  if (!vm) return 0;
  const auto given = given_options(*vm, "describe");
  const auto d = describe(*given.text("model"), given.text("platform").value_or("cs2"),
                          app::optional_count(given.text("seq-len"), "--seq-len"));
  if (vm->count("json"))
    fmt::print("{}\n", io::json_text(to_json(d.scenario, d.platform, d.costs, d.figures), 2));
  else
    print_text(d.scenario, d.platform, d.costs, d.figures);
  return 0;
}

}  // namespace csx::cli
