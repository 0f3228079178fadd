// platforms/*.yaml -> PlatformSpec. One table describes every numeric key, so loading,
// overrides and error messages share the same names and bounds.
#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <optional>
#include <variant>

#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "input/platform_loader.hpp"
#include "input/scenario.hpp"
#include "input/yaml_block.hpp"
#include "platform/fitted_parameters.hpp"

namespace csx::platform {
namespace {

using Field = std::variant<double PlatformSpec::*, std::int64_t PlatformSpec::*>;

struct Param {
  const char* section;
  const char* key;
  Field field;
  double min;
  double max;
  const char* unit;
  std::optional<double> fallback;  // the value when the file omits the key
  const char* meaning;             // " (fitted)" is added for the fitted parameters
};

// The fallbacks: none (the file must give the key), or one that leaves the key's term out.
constexpr std::optional<double> kRequired = std::nullopt, kNoScaling = 1.0, kNoCost = 0.0;

// Bounds keep the model physical: efficiencies and fractions at most 1, positive rates. One row
// a key: its section, key and field; bounds, unit and fallback; meaning.
const std::vector<Param>& params() {
  // clang-format off
  static const std::vector<Param> table{
      {"system", "cores", &PlatformSpec::cores,
       1, 1e9, "cores", kRequired,
       "compute cores on the wafer"},
      {"system", "sram_bytes", &PlatformSpec::sram_bytes,
       1, 1e15, "bytes", kRequired,
       "on-chip SRAM"},
      {"system", "sram_bandwidth_Bps", &PlatformSpec::sram_bandwidth_Bps,
       1, 1e20, "bytes/s", kRequired,
       "SRAM bandwidth of the wafer"},
      {"system", "fabric_bandwidth_Bps", &PlatformSpec::fabric_bandwidth_Bps,
       1, 1e20, "bytes/s", kRequired,
       "wafer fabric bandwidth"},
      {"system", "peak_flops", &PlatformSpec::peak_flops,
       1, 1e20, "FLOP/s", kRequired,
       "dense 16-bit peak (MFU's denominator)"},
      {"system", "fabric_rows", &PlatformSpec::fabric_rows,
       1, 1e6, "rows", kRequired,
       "core rows a streamed weight word feeds (SIMD fill)"},
      {"system", "fabric_columns", &PlatformSpec::fabric_columns,
       1, 1e6, "columns", kRequired,
       "core columns that split a product's input features"},
      {"system", "simd_width", &PlatformSpec::simd_width,
       1, 1024, "lanes", kRequired,
       "16-bit FMACs per core per cycle"},
      {"system", "io_ports", &PlatformSpec::io_ports,
       1, 1e4, "ports", kRequired,
       "100 GbE ports of a CS-X (and of each SwarmX link)"},
      {"system", "io_port_bandwidth_Bps", &PlatformSpec::io_port_bandwidth_Bps,
       1, 1e15, "bytes/s", kRequired,
       "bandwidth of one CS-X I/O port"},
      {"system", "io_scale", &PlatformSpec::io_scale,
       0.01, 1000, "factor", kNoScaling,
       "\"N times the I/O\": scales every link of the weight path (CS-X I/O, SwarmX links, MemoryX link)"},
      {"system", "max_cluster_size", &PlatformSpec::max_cluster_size,
       1, 1e6, "systems", kRequired,
       "largest num_csx"},
      {"swarmx", "fanout", &PlatformSpec::swarmx_fanout,
       2, 1024, "children", kRequired,
       "children of a SwarmX broadcast-reduce node"},
      {"swarmx", "link_bandwidth_Bps", &PlatformSpec::swarmx_link_bandwidth_Bps,
       1, 1e15, "bytes/s", kRequired,
       "bandwidth of one SwarmX port (a link has io_ports of them)"},
      {"memoryx", "capacity_bytes", &PlatformSpec::memoryx_capacity_bytes,
       1, 1e20, "bytes", kRequired,
       "weights and optimizer state MemoryX holds"},
      {"memoryx", "bytes_per_parameter", &PlatformSpec::memoryx_bytes_per_parameter,
       1, 64, "bytes", kRequired,
       "MemoryX bytes per parameter (mixed-precision Adam: 16)"},
      {"calibration", "memoryx_bandwidth_Bps", &PlatformSpec::memoryx_bandwidth_Bps,
       1, 1e15, "bytes/s", kRequired,
       "MemoryX link to the SwarmX root"},
      {"calibration", "optimizer_rate_params_per_s", &PlatformSpec::optimizer_rate_params_per_s,
       1, 1e18, "parameters/s", kRequired,
       "MemoryX optimizer update rate"},
      {"calibration", "swarmx_hop_latency_s", &PlatformSpec::swarmx_hop_latency_s,
       0, 1, "s", kRequired,
       "latency of one link hop"},
      {"calibration", "swarmx_chunk_bytes", &PlatformSpec::swarmx_chunk_bytes,
       1e7, 1e15, "bytes", kRequired,
       "SwarmX forwards layers in chunks of this size"},
      {"calibration", "compute_efficiency", &PlatformSpec::compute_efficiency,
       0.000001, 1, "fraction", kRequired,
       "share of peak a kernel reaches with full SIMD lanes"},
      {"calibration", "dispatch_overhead_cycles", &PlatformSpec::dispatch_overhead_cycles,
       0, 100, "cycles", kRequired,
       "core cycles per arriving weight word beyond the FMACs"},
      {"calibration", "softmax_cycles_per_score", &PlatformSpec::softmax_cycles_per_score,
       0, 1000, "cycles", kNoCost,
       "core cycles per attention score beyond its multiply-adds"},
      {"calibration", "kept_bytes_per_attention_score",
       &PlatformSpec::kept_bytes_per_attention_score, 0, 5, "bytes", kNoCost,
       "bytes of each attention score a trained block keeps for backward (0: recomputed)"},
      {"calibration", "reduce_cycles_per_output", &PlatformSpec::reduce_cycles_per_output,
       0, 100, "cycles", kNoCost,
       "core cycles per partial sum reduced across the columns"},
      {"calibration", "sram_bytes_per_flop", &PlatformSpec::sram_bytes_per_flop,
       0, 100, "bytes/FLOP", kNoCost,
       "SRAM traffic per FLOP of a busy core's products"},
      {"calibration", "step_overhead_s", &PlatformSpec::step_overhead_s,
       0, 100, "s", kRequired,
       "fixed cost of a training step"},
      {"calibration", "client_step_floor_s", &PlatformSpec::client_step_floor_s,
       0, 100, "s", kNoCost,
       "shortest training step the appliance client keeps up with"},
      {"calibration", "kernel_overhead_s", &PlatformSpec::kernel_overhead_s,
       0, 10, "s", kRequired,
       "fixed cost of a layer kernel pass"},
      {"calibration", "microbatch_overhead_s", &PlatformSpec::microbatch_overhead_s,
       0, 100, "s", kRequired,
       "fixed cost of a microbatch"},
      {"calibration", "usable_sram_fraction", &PlatformSpec::usable_sram_fraction,
       0.000001, 1, "fraction", kRequired,
       "SRAM share the model may use"},
      {"calibration", "workspace_bytes", &PlatformSpec::workspace_bytes,
       0, 1e15, "bytes", kRequired,
       "kernel scratch and I/O buffers"},
      {"calibration", "weight_buffers", &PlatformSpec::weight_buffers,
       1, 64, "layers", kRequired,
       "layers of weights on the wafer at once"},
      {"calibration", "prediction_log_sd", &PlatformSpec::prediction_log_sd,
       0, 2, "ln(ratio)", kRequired,
       "SD of the leave-one-model-out residuals ln(predicted/measured): the prediction intervals' width"},
      {"input_workers", "imagenet1k_samples_per_s",
       &PlatformSpec::imagenet1k_samples_per_s, 0, io::kMaxInputRate, "samples/s", kNoCost,
       "samples/s one ImageNet1KProcessor dataloader process delivers (0: input not simulated)"},
      {"input_workers", "input_rate_log_sd", &PlatformSpec::input_rate_log_sd,
       0, 2, "ln(ratio)", kNoCost,
       "SD of ln(rate) of those input rates between clusters: widens input-bound intervals"},
  };
  // clang-format on
  return table;
}

const std::vector<std::string> kSections{"name",    "system",      "swarmx",
                                         "memoryx", "calibration", "input_workers"};

// The keys that take one of a few words, all in `calibration`.
struct Choice {
  const char* key;
  std::vector<std::string> values;
  const char* meaning;
  std::string (*get)(const PlatformSpec&);
  void (*put)(PlatformSpec&, const std::string&);
};

const std::vector<Choice>& choices() {
  static const std::vector<Choice> table{
      {"activation_policy",
       {"least_recompute", "store_all"},
       "least_recompute (keep what fits, recompute the rest) or store_all",
       [](const PlatformSpec& s) -> std::string {
         return s.store_all_activations ? "store_all" : "least_recompute";
       },
       [](PlatformSpec& s, const std::string& v) { s.store_all_activations = v == "store_all"; }},
      {"gradient_accumulation",
       {"memoryx", "wafer"},
       "memoryx (every microbatch's gradients leave the wafer) or wafer",
       [](const PlatformSpec& s) -> std::string {
         return s.gradient_accumulation == GradientAccumulation::kWafer ? "wafer" : "memoryx";
       },
       [](PlatformSpec& s, const std::string& v) {
         s.gradient_accumulation =
             v == "wafer" ? GradientAccumulation::kWafer : GradientAccumulation::kMemoryX;
       }},
      {"weight_update",
       {"per_layer", "after_all_gradients"},
       "per_layer (a layer's update starts at its last gradient) or after_all_gradients (global "
       "gradient-norm clipping: every update waits for the step's last gradient)",
       [](const PlatformSpec& s) -> std::string {
         return s.update_after_all_gradients ? "after_all_gradients" : "per_layer";
       },
       [](PlatformSpec& s, const std::string& v) {
         s.update_after_all_gradients = v == "after_all_gradients";
       }},
  };
  return table;
}

std::vector<std::string> keys_of(const std::string& section) {
  std::vector<std::string> keys;
  for (const auto& p : params())
    if (section == p.section) keys.emplace_back(p.key);
  if (section == "calibration")
    for (const auto& c : choices()) keys.emplace_back(c.key);
  return keys;
}

// A key of `section` that another section holds (system.fanout is swarmx's): InputError saying
// where it belongs, before require_known_keys' did-you-mean, which looks in one section only.
void reject_key_of_other_section(const io::Block& b, const std::string& section) {
  const auto mine = keys_of(section);
  for (const auto& kv : b.node()) {
    const std::string key = kv.first.Scalar();
    if (std::find(mine.begin(), mine.end(), key) != mine.end()) continue;
    std::string other;
    for (const auto& p : params())
      if (p.key == key) other = p.section;
    for (const auto& c : choices())
      if (c.key == key) other = "calibration";
    if (!other.empty())
      throw InputError(fmt::format("{}: unknown key in {}; it belongs in {} ({}.{})", b.where(key),
                                   section, other, other, key));
  }
}

void set(PlatformSpec& spec, const Param& p, const io::Block& b) {
  // Our own files are strict: a key written with no value is not read as left out.
  if (b.has(p.key) && !b.has_value(p.key))
    throw InputError(fmt::format("{}: no value; give one or leave the key out", b.where(p.key)));
  if (p.fallback)
    spec.*std::get<double PlatformSpec::*>(p.field) =
        b.get_number_opt(p.key, p.min, p.max).value_or(*p.fallback);
  else if (std::holds_alternative<double PlatformSpec::*>(p.field))
    spec.*std::get<double PlatformSpec::*>(p.field) = b.get_number(p.key, p.min, p.max);
  else {
    const auto v = b.get_int(p.key, static_cast<std::int64_t>(p.min));
    if (static_cast<double>(v) > p.max)
      throw InputError(fmt::format("{} = {}: must be at most {}", b.where(p.key), v, p.max));
    spec.*std::get<std::int64_t PlatformSpec::*>(p.field) = v;
  }
}

// A measured input rate is 0 (off) or one --input-rate could be: at least io::kMinInputRate.
void check_input_rate(const PlatformSpec& spec, const io::Block& b) {
  const double v = spec.imagenet1k_samples_per_s;
  if (v > 0 && v < io::kMinInputRate)
    throw InputError(fmt::format("{} = {:g}: 0 (not simulated) or {}",
                                 b.where("imagenet1k_samples_per_s"), v, io::input_rate_rule()));
}

void set_choices(PlatformSpec& spec, const io::Block& b) {
  // Absent keys keep the current value, so an override of one leaves the other alone.
  for (const auto& c : choices()) c.put(spec, b.get_choice(c.key, c.values, c.get(spec)));
}

}  // namespace

bool is_platform_path(const std::string& name_or_path) {
  return name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".yaml") ||
         name_or_path.ends_with(".yml");
}

PlatformSpec load_platform(const std::string& name_or_path, const std::string& data_dir) {
  namespace fs = std::filesystem;
  std::string path = name_or_path;
  if (!is_platform_path(name_or_path)) {
    const std::vector<std::string> known{"cs2", "cs3"};
    if (std::find(known.begin(), known.end(), name_or_path) == known.end())
      throw InputError(fmt::format("unknown platform '{}'{}: use cs2, cs3 or a platform file",
                                   name_or_path, did_you_mean(name_or_path, known)));
    path = (fs::path(data_dir) / "platforms" / (name_or_path + ".yaml")).string();
  }
  return read_platform(io::load_yaml_file(path), path);
}

PlatformSpec read_platform_unchecked(const YAML::Node& root_node, const std::string& path);

PlatformSpec read_platform(const YAML::Node& root_node, const std::string& path) {
  try {
    return read_platform_unchecked(root_node, path);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}: {}", path, e.mark.line + 1, e.msg));
  }
}

PlatformSpec read_platform_unchecked(const YAML::Node& root_node, const std::string& path) {
  if (!root_node.IsMap())
    throw InputError(fmt::format("{}: expected a YAML mapping of keys at the top level", path));
  const io::Block root(path, "", root_node);
  root.require_known_keys(kSections);
  PlatformSpec spec;
  spec.source = path;
  spec.name = root.get_string("name");
  // The name labels CSV rows and prefixes overrides (NAME:KEY=VALUE, NAME+VARIANT): no
  // separator of those may be in it, and it may not be empty.
  const bool plain =
      !spec.name.empty() && std::all_of(spec.name.begin(), spec.name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
      });
  if (!plain)
    throw InputError(fmt::format(
        "{} = '{}': a platform name is letters, digits, '_', '-' and '.' (it labels the CSV "
        "rows; ',', ':', ';', '=' and '+' separate lists, overrides and variants)",
        root.where("name"), spec.name));
  for (const auto& section : {"system", "swarmx", "memoryx", "calibration"}) {
    const io::Block b = root.child(section);
    reject_key_of_other_section(b, section);
    b.require_known_keys(keys_of(section));
    for (const auto& p : params())
      if (std::string(p.section) == section) set(spec, p, b);
    if (std::string(section) == "calibration") set_choices(spec, b);
  }
  // Optional: a platform file written before it stays valid (its input is not simulated).
  const YAML::Node none(YAML::NodeType::Map);
  const auto workers = root.optional_child("input_workers");
  const io::Block b = workers ? *workers : io::Block(path, "input_workers", none);
  reject_key_of_other_section(b, "input_workers");
  b.require_known_keys(keys_of("input_workers"));
  for (const auto& p : params())
    if (std::string(p.section) == "input_workers") set(spec, p, b);
  check_input_rate(spec, b);
  return spec;
}

void override_parameter(PlatformSpec& spec, const std::string& key, const std::string& value,
                        const std::string& flag) {
  const auto dot = key.find('.');
  std::vector<std::string> all;
  for (const auto& k : platform_keys()) all.push_back(k.key);
  if (dot == std::string::npos || std::find(all.begin(), all.end(), key) == all.end()) {
    // A key given without its section ("io_scale"): name the section it is in.
    std::string hint = did_you_mean(key, all);
    if (dot == std::string::npos)
      for (const auto& k : all)
        if (k.ends_with("." + key)) hint = fmt::format(" (did you mean '{}'?)", k);
    // As given: --platform-override KEY=VALUE, --variant NAME:KEY=VALUE.
    const char* joined = flag.starts_with("--variant ") ? ":" : " ";
    throw InputError(fmt::format("{}{}{}={}: unknown key{}", flag, joined, key, value, hint));
  }
  YAML::Node n;
  n[key.substr(dot + 1)] = value;
  const io::Block b(flag, key.substr(0, dot), n);
  for (const auto& p : params())
    if (std::string(p.section) + "." + p.key == key) {
      set(spec, p, b);
      if (key == "input_workers.imagenet1k_samples_per_s") check_input_rate(spec, b);
      return;
    }
  set_choices(spec, b);
}

Overrides overrides_for(const std::string& name, const Overrides& overrides) {
  Overrides mine;
  for (const auto& [key, value] : overrides) {
    const auto colon = key.find(':');
    if (colon == std::string::npos)
      mine.emplace_back(key, value);
    else if (key.substr(0, colon) == name)
      mine.emplace_back(key.substr(colon + 1), value);
  }
  return mine;
}

void apply_overrides(PlatformSpec& p, const Overrides& overrides, bool refuse_other_platforms,
                     const std::string& flag) {
  if (refuse_other_platforms)
    for (const auto& [key, value] : overrides) {
      const auto colon = key.find(':');
      if (colon != std::string::npos && key.substr(0, colon) != p.name)
        throw InputError(
            fmt::format("{} {}={}: this run's platform is '{}', not "
                        "'{}'{}",
                        flag, key, value, p.name, key.substr(0, colon),
                        did_you_mean(key.substr(0, colon), {p.name})));
    }
  for (const auto& [key, value] : overrides_for(p.name, overrides)) {
    override_parameter(p, key, value, flag);
    p.overridden[key] = flag;
  }
}

std::vector<KeyInfo> platform_keys() {
  std::vector<KeyInfo> keys;
  for (const auto& p : params()) {
    const auto key = std::string(p.section) + "." + p.key;
    std::string meaning = p.meaning;
    if (is_fitted(key)) meaning += " (fitted)";
    keys.push_back({key, p.unit, meaning, p.min, p.max});
  }
  for (const auto& c : choices())
    keys.push_back({std::string("calibration.") + c.key, "choice", c.meaning, 0, 0});
  return keys;
}

std::string parameter_value(const PlatformSpec& spec, const std::string& key) {
  for (const auto& p : params()) {
    if (std::string(p.section) + "." + p.key != key) continue;
    if (std::holds_alternative<double PlatformSpec::*>(p.field))
      return fmt::format("{:g}", spec.*std::get<double PlatformSpec::*>(p.field));
    return std::to_string(spec.*std::get<std::int64_t PlatformSpec::*>(p.field));
  }
  for (const auto& c : choices())
    if (std::string("calibration.") + c.key == key) return c.get(spec);
  throw InputError(fmt::format("unknown platform key {}", key));
}

}  // namespace csx::platform
