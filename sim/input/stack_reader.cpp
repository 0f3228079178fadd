// Transformer stacks and sequence lengths from Model Zoo keys.
#include "input/stack_reader.hpp"

#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <regex>

#include "common/errors.hpp"
#include "input/modelzoo_data.hpp"

namespace csx::model {
namespace {

// The GLU variants gate the FFN with a third matrix. The Model Zoo's activations (ACT2FN,
// src/cerebras/modelzoo/layers/activations.py), read in any case as its get_activation does; bliglu
// (a bilinear GLU, Shazeer 2020) stays from csxsim's earlier list.
const std::vector<std::string> kNonlinearities{
    "gelu",   "gelu_new",   "gelu_fast", "quick_gelu", "squared_gelu", "relu",  "squared_relu",
    "relu6",  "leaky_relu", "silu",      "swish",      "mish",         "tanh",  "sigmoid",
    "linear", "swiglu",     "geglu",     "reglu",      "liglu",        "bliglu"};
const std::vector<std::string> kPositions{"learned",  "fixed", "rotary", "alibi",
                                          "relative", "None",  "none"};
const std::vector<std::string> kNorms{"layernorm", "rmsnorm", "biasless-layernorm"};

bool gated(const std::string& nonlinearity) {
  return nonlinearity == "swiglu" || nonlinearity == "geglu" || nonlinearity == "reglu" ||
         nonlinearity == "liglu" || nonlinearity == "bliglu";
}

void note(ModelSpec& spec, std::string what) {
  if (std::find(spec.modelled.begin(), spec.modelled.end(), what) == spec.modelled.end())
    spec.modelled.push_back(std::move(what));
}

// "8k" -> 8192, "1K" -> 1024, "2048" -> 2048.
std::optional<std::int64_t> msl_value(const std::string& digits, const std::string& suffix) {
  if (digits.size() > 7) return std::nullopt;
  std::int64_t v = std::stoll(digits);
  if (!suffix.empty()) v *= 1024;
  if (v < 1 || v > kMaxSequence) return std::nullopt;
  return v;
}

// An MSL the file states outside its keys: its name (params_llama3p1_70b_msl_8k.yaml) or a
// comment line before the first key ("# ... max_seq_length 1K").
std::optional<SeqLen> stated_msl(const std::string& file) {
  // "msl_8k", "MSL2K", "msl128k", "MSL128": at least three digits, or a k suffix; not "1.5k".
  const std::regex in_name(R"((?:^|[_\-])msl[_\-]?(\d{3,}|\d+(?=[kK]))([kK]?)(?:$|[_\-]))",
                           std::regex::icase);
  const std::string stem = std::filesystem::path(file).stem().string();
  std::smatch m;
  if (std::regex_search(stem, m, in_name))
    if (auto v = msl_value(m[1], m[2])) return SeqLen{*v, "the file name (" + m[0].str() + ")"};
  std::ifstream in(file);
  const std::regex in_comment(R"((?:max_seq(?:uence)?_length|\bMSL)\s*[:=]?\s*(\d+)([kK]?)\b)",
                              std::regex::icase);
  std::string line;
  for (int i = 0; i < 20 && std::getline(in, line); ++i) {
    if (line.empty()) continue;
    if (line[0] != '#') break;
    if (std::regex_search(line, m, in_comment))
      if (auto v = msl_value(m[1], m[2])) return SeqLen{*v, "the file's header comment"};
  }
  return std::nullopt;
}

}  // namespace

Stack read_stack(const io::Block& m, const StackKeys& k, const StackDefaults& def, std::string name,
                 ModelSpec& spec) {
  Stack st;
  st.name = std::move(name);
  st.hidden_size = m.get_int(k.hidden, 1, kMaxWidth);
  st.num_layers = m.get_int(k.layers, 1, kMaxLayers);
  st.num_heads = m.get_int(k.heads, 1, kMaxWidth);
  st.filter_size = m.get_int(k.filter, 1, kMaxWidth);
  // Head width: d_kv (T5), attention_inner_dim / heads (Gemma 2), else hidden / heads.
  if (auto dkv = m.get_int_opt("d_kv", 1, kMaxWidth)) {
    st.head_dim = *dkv;
  } else if (auto inner = m.get_int_opt("attention_inner_dim", 1, kMaxWidth)) {
    if (*inner % st.num_heads != 0)
      throw InputError(fmt::format("{} = {}: must be a multiple of num_heads = {}",
                                   m.where("attention_inner_dim"), *inner, st.num_heads));
    st.head_dim = *inner / st.num_heads;
    if (*inner != st.hidden_size) note(spec, fmt::format("attention width {}", *inner));
  } else {
    if (st.hidden_size % st.num_heads != 0)
      throw InputError(fmt::format("{} = {}: num_heads must divide {} = {}", m.where(k.heads),
                                   st.num_heads, k.hidden, st.hidden_size));
    st.head_dim = st.hidden_size / st.num_heads;
  }
  st.num_kv_heads = st.num_heads;
  // The Model Zoo's two attention modules (its model configs' Literal, Release 2.3 to 2.10):
  // another value is refused there too, so it is not read as multi-head attention here.
  const std::string module = m.get_choice(
      "attention_module", {"aiayn_attention", "multiquery_attention"}, "aiayn_attention");
  if (module == "multiquery_attention") st.num_kv_heads = 1;
  if (auto extra = m.optional_child("extra_attention_params"))
    if (auto groups = extra->get_int_opt("num_kv_groups", 1, kMaxWidth)) {
      if (st.num_heads % *groups != 0)
        throw InputError(fmt::format("{} = {}: must divide num_heads = {}",
                                     extra->where("num_kv_groups"), *groups, st.num_heads));
      st.num_kv_heads = *groups;
    }
  if (st.num_kv_heads == 1 && st.num_heads > 1)
    note(spec, "multi-query attention");
  else if (st.num_kv_heads < st.num_heads)
    note(spec, fmt::format("grouped-query attention ({} kv heads)", st.num_kv_heads));

  st.nonlinearity = m.get_choice_any_case(k.nonlinearity, kNonlinearities, def.nonlinearity);
  st.gated_ffn = gated(st.nonlinearity);
  if (st.gated_ffn) note(spec, st.nonlinearity + " FFN");
  st.position = m.get_choice("position_embedding_type", kPositions, def.position);
  if (st.position == "None" || st.position == "none") st.position = "none";
  if (st.position == "alibi" || st.position == "rotary" || st.position == "relative")
    note(spec, st.position + " positions");
  const bool proj_bias = m.get_bool("use_projection_bias_in_attention", def.biases);
  const bool ffn_bias =
      m.get_bool("use_ffn_bias", m.get_bool("use_ffn_bias_in_attention", def.biases));
  st.biases = proj_bias || ffn_bias;
  const std::string norm =
      m.get_choice_any_case("norm_type", kNorms, def.layer_norm ? "layernorm" : "rmsnorm");
  st.layer_norm = norm == "layernorm";
  st.parallel_attention_ffn = def.parallel;
  if (st.parallel_attention_ffn) {
    st.norms_per_block = m.get_bool("use_untied_layer_norm", false) ? 2 : 1;
    note(spec, "parallel attention and FFN");
  }
  if (m.get_bool("norm_first_sandwich", false)) {
    st.norms_per_block = 4;
    note(spec, "sandwich norms");
  }
  if (auto w = m.get_int_opt("attention_sliding_window_length", 1, kMaxSequence)) {
    st.sliding_window = *w;
    if (m.get_bool("sliding_window_every_other_decoder_layer", false)) st.windowed_every = 2;
    note(spec, fmt::format("sliding window {}{}", *w,
                           st.windowed_every == 2 ? " on every other block" : ""));
  }
  // moe_params: the field `moe` is the alias of (GPT2LMHeadModelConfig, Release 2.10.0, which
  // populates by either name).
  auto moe = m.optional_child("moe");
  if (!moe) moe = m.optional_child("moe_params");
  if (moe) {
    st.num_experts = moe->get_int_opt("num_experts", 1, 10000).value_or(1);
    st.top_k = moe->get_int_opt("top_k", 1, 10000).value_or(1);
    st.num_shared_experts = moe->get_int_opt("num_shared_experts", 0, 10000).value_or(0);
    if (st.top_k > st.num_experts)
      throw InputError(fmt::format("{} = {}: top_k cannot exceed num_experts = {}",
                                   moe->where("top_k"), st.top_k, st.num_experts));
    if (st.num_experts > 1)
      note(spec,
           fmt::format(
               "MoE {} experts, top-{}{}", st.num_experts, st.top_k,
               st.num_shared_experts > 0 ? fmt::format(", {} shared", st.num_shared_experts) : ""));
  }
  return st;
}

std::optional<std::int64_t> model_or_input_size_opt(const io::Block& m,
                                                    const std::optional<io::Block>& input,
                                                    const std::string& key, std::int64_t min,
                                                    std::int64_t max) {
  if (m.has_value(key) || !input) return m.get_int_opt(key, min, max);
  return input->get_int_opt(key, min, max);
}

std::int64_t model_or_input_size(const io::Block& m, const std::optional<io::Block>& input,
                                 const std::string& key,
                                 const std::vector<std::string>& vocab_file_keys, std::int64_t min,
                                 std::int64_t max, ModelSpec& spec) {
  if (m.has_value(key) || !input) return m.get_int(key, min, max);
  if (auto v = input->get_int_opt(key, min, max)) {
    note(spec, fmt::format("{} from {}.{}", key, input->key_path(), key));
    return *v;
  }
  for (const auto& file_key : vocab_file_keys) {
    const auto path = input->get_string_opt(file_key);
    if (!path) continue;
    if (const VocabFile* known = known_vocab_file(*path)) {
      note(spec, fmt::format("{} {} from {}.{} = '{}' (the size {} gives for that file)", key,
                             known->size, input->key_path(), file_key, *path, known->source));
      return known->size;
    }
    throw InputError(fmt::format(
        "{} = '{}': no vocabulary size: neither model.{} nor {}.{} is set, and "
        "csxsim does not know this vocabulary file's size (the Model Zoo counts its lines); set "
        "model.{}",
        input->where(file_key), *path, key, input->key_path(), key, key));
  }
  return m.get_int(key, min, max);  // the missing-key error
}

SeqLen training_seq_len(const std::optional<io::Block>& data, const std::string& key,
                        const std::string& file, std::optional<std::int64_t> cli,
                        std::int64_t fallback, const std::string& fallback_from) {
  if (cli) return {*cli, "--seq-len"};
  if (data)
    if (auto v = data->get_int_opt(key, 1, kMaxSequence)) return {*v, data->key_path() + "." + key};
  if (auto stated = stated_msl(file)) return *stated;
  return {fallback, fallback_from};
}

}  // namespace csx::model
