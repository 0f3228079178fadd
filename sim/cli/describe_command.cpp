// `csxsim describe`: a model's parameters, FLOPs, streamed bytes, activations and memory fit
// (app/describe.hpp), as text or JSON.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/describe.hpp"
#include "app/job_options.hpp"
#include "cli/commands.hpp"
#include "cli/option_descriptions.hpp"
#include "report/results_json.hpp"

namespace csx::cli {
namespace {

using app::architecture_name;
using app::attention_kind;
using app::Figures;
using app::kind_name;

void print_description(const io::Scenario& scenario, const platform::PlatformSpec& platform,
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
  fmt::print("{:<44}{:>20.4e}\n", "training FLOP per sample (+1 forward redone)",
             costs.train_flops_per_sample(true));
  fmt::print("{:<44}{:>20.4e}\n", "forward FLOP per sample", costs.forward_flops_per_sample());
  fmt::print("{:<44}{:>20.4e}\n", "weight bytes streamed per pass", costs.weight_bytes_per_pass());
  fmt::print("{:<44}{:>20.4e}\n", "activation bytes per sample (all kept)",
             costs.kept_activation_bytes_per_sample(platform.kept_bytes_per_attention_score));
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
               L.parameters, L.weight_bytes, L.forward_flops,
               L.kept_activation_bytes(platform.kept_bytes_per_attention_score));
}

}  // namespace

int describe_command(const Args& args) {
  const auto vm = parse_command(args, "describe");
  if (!vm) return 0;
  const auto given = given_options(*vm, "describe");
  const auto d = app::describe(*given.text("model"), given.text("platform").value_or("cs2"),
                               app::optional_count(given.text("seq-len"), "--seq-len"));
  if (vm->count("json"))
    fmt::print("{}\n", io::json_text(app::describe_json(d), 2));
  else
    print_description(d.scenario, d.platform, d.costs, d.figures);
  return 0;
}

}  // namespace csx::cli
