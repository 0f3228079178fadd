// Model Zoo model blocks -> ModelSpec, with strict checks on the fields csxsim reads.
#include "model/model_loader.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "io/yaml_block.hpp"

namespace csx::model {
namespace {

// Upper bounds that keep every count and product within 64-bit arithmetic; far above any
// published model.
constexpr std::int64_t kMaxWidth = 1'000'000;       // hidden_size, filter_size, heads
constexpr std::int64_t kMaxLayers = 10'000;         // num_hidden_layers
constexpr std::int64_t kMaxVocab = 100'000'000;     // vocab_size, num_classes
constexpr std::int64_t kMaxSequence = 10'000'000;   // positions, sequence length, image side

std::optional<std::string> family_in_file_name(const std::string& stem);

// Keys of model blocks in Model Zoo configs that csxsim does not need (no effect on costs).
const std::vector<std::string> kIgnoredModelKeys{
    "attention_dropout_rate", "attention_softmax_fp32", "attention_type", "dropout_rate",
    "embedding_dropout_rate", "embedding_initializer", "embedding_layer_norm", "fp16_type",
    "initializer", "initializer_range", "layer_norm_epsilon", "loss_scaling", "loss_weight",
    "mixed_precision", "mlm_loss_weight", "norm_first", "norm_type", "output_layer_initializer",
    "pooler_nonlinearity", "pos_scaling_extra_args", "pos_scaling_factor", "pos_scaling_type",
    "residual_dropout_rate", "rope_theta", "rotary_dim", "use_bias_in_output",
    "use_conv_patchified_embedding", "use_encoder_pooler_layer", "use_ffn_bias",
    "use_ffn_bias_in_attention", "use_projection_bias_in_attention", "use_untied_layer_norm",
    "boundary_casting", "tf_summary", "disable_nsp", "num_segments", "enable_vts",
    "layer_norm_type", "attention_inner_dim", "attention_kernel", "use_bfloat16",
    "precision_opt_level", "compute_eval_metrics", "label_smoothing"};

const std::vector<std::string> kReadModelKeys{
    "name", "vocab_size", "hidden_size", "num_hidden_layers", "num_heads", "filter_size",
    "max_position_embeddings", "nonlinearity", "encoder_nonlinearity", "share_embedding_weights",
    "position_embedding_type", "attention_module", "extra_attention_params", "moe",
    "image_size", "patch_size", "num_channels", "num_classes", "depth", "norm_layer",
    "prepend_cls_token"};

// Families without biases in their linear layers (Llama-style).
bool family_has_biases(const std::string& name) {
  return !(name == "llama" || name == "mistral" || name == "mixtral" || name == "falcon");
}

// trainer.init.model (Trainer layout, Release 2.4+) or model (legacy layout).
io::Block model_block(const YAML::Node& root, const std::string& file) {
  io::Block top(file, "", root);
  if (top.has_value("trainer")) {
    YAML::Node t = root["trainer"];
    if (t.IsSequence() && t.size() > 0) t = t[0]["trainer"] ? t[0]["trainer"] : t[0];
    io::Block trainer(file, "trainer", t);
    return trainer.child("init").child("model");
  }
  if (top.has_value("model")) return top.child("model");
  top.reject_typos({"trainer", "model"}, {"train_input", "eval_input", "runconfig", "optimizer"});
  throw InputError(fmt::format(
      "{}: no model found: expected trainer.init.model (Trainer layout) or model (legacy "
      "layout){}",
      file, top.has("trainer") ? "" : ""));
}

// The train dataloader block, if any: trainer.fit.train_dataloader or train_input.
std::optional<io::Block> train_data_block(const YAML::Node& root, const std::string& file) {
  io::Block top(file, "", root);
  if (top.has_value("trainer") && root["trainer"].IsMap()) {
    io::Block trainer = top.child("trainer");
    if (auto fit = trainer.optional_child("fit")) return fit->optional_child("train_dataloader");
    return std::nullopt;
  }
  return top.optional_child("train_input");
}

std::optional<std::string> family_in_file_name(const std::string& stem) {
  std::optional<std::string> best;
  for (const auto& f : known_families())
    if (stem.find(f) != std::string::npos && (!best || f.size() > best->size())) best = f;
  return best;
}

std::int64_t square_side(const io::Block& b, const std::string& key, std::int64_t fallback) {
  if (!b.has_value(key)) return fallback;
  const YAML::Node n = b.node()[key];
  if (n.IsSequence()) {
    if (n.size() != 2 || !n[0].IsScalar() || !n[1].IsScalar())
      throw InputError(fmt::format("{}: expected [height, width]", b.where(key)));
    const auto hgt = io::parse_int_scalar(n[0].Scalar(), b.where(key), 1);
    const auto wid = io::parse_int_scalar(n[1].Scalar(), b.where(key), 1);
    if (hgt > kMaxSequence)
      throw InputError(fmt::format("{} = {}: must be at most {}", b.where(key), hgt, kMaxSequence));
    if (hgt != wid)
      throw InputError(fmt::format("{} = [{}, {}]: only square images are modelled",
                                   b.where(key), hgt, wid));
    return hgt;
  }
  return b.get_int(key, 1, kMaxSequence);
}

void read_vision(const io::Block& m, ModelSpec& s) {
  s.num_classes = m.get_int_opt("num_classes", 1, kMaxVocab).value_or(1000);
  s.num_channels = m.get_int_opt("num_channels", 1, 1000).value_or(3);
  s.image_size = square_side(m, "image_size", 224);
}

}  // namespace

const std::vector<std::string>& known_families() {
  static const std::vector<std::string> families{
      "gpt2", "gpt3", "gptj", "gpt_neox", "llama", "mistral", "mixtral", "falcon",
      "bert", "vision_transformer", "resnet"};
  return families;
}

ModelSpec read_model_unchecked(const YAML::Node& root, const std::string& file,
                               std::optional<std::int64_t> seq_len);

ModelSpec read_model(const YAML::Node& root, const std::string& file,
                     std::optional<std::int64_t> seq_len) {
  try {
    return read_model_unchecked(root, file, seq_len);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}: {}", file, e.mark.line + 1, e.msg));
  }
}

ModelSpec read_model_unchecked(const YAML::Node& root, const std::string& file,
                               std::optional<std::int64_t> seq_len) {
  if (seq_len && (*seq_len < 1 || *seq_len > kMaxSequence))
    throw InputError(fmt::format("sequence length {} must be within [1, {}]", *seq_len,
                                 kMaxSequence));
  const io::Block m = model_block(root, file);
  m.reject_typos(kReadModelKeys, kIgnoredModelKeys);
  ModelSpec s;
  s.source = file;
  s.label = std::filesystem::path(file).stem().string();
  // Legacy (Release <= 2.3) configs carry no name: the Model Zoo took the family from the
  // config's directory. Use encoder_nonlinearity (BERT), else a family named in the file name.
  if (m.has_value("name"))
    s.name = m.get_string("name");
  else if (m.has("encoder_nonlinearity"))
    s.name = "bert";
  else if (auto fam = family_in_file_name(s.label))
    s.name = *fam;
  else if (m.has("nonlinearity") && m.has("vocab_size"))
    s.name = "gpt3";  // a GPT-style decoder, the other legacy family without a name
  else
    throw InputError(fmt::format("{}: required key is missing (the model family, one of {})",
                                 m.where("name"), fmt::join(known_families(), ", ")));
  const auto& fams = known_families();
  if (std::find(fams.begin(), fams.end(), s.name) == fams.end())
    throw InputError(fmt::format("{} = '{}': unknown model family{}; known families: {}",
                                 m.where("name"), s.name, did_you_mean(s.name, fams),
                                 fmt::join(fams, ", ")));

  if (s.name == "resnet") {
    s.architecture = Architecture::kResNet;
    s.depth = m.get_int_opt("depth").value_or(50);
    if (s.depth != 50)
      throw InputError(fmt::format("{} = {}: only ResNet-50 is modelled", m.where("depth"),
                                   s.depth));
    if (seq_len)
      throw InputError(fmt::format("{}: --seq-len applies to transformer models; this is a CNN",
                                   file));
    read_vision(m, s);
    s.seq_len = 1;
    return s;
  }

  s.architecture = s.name == "bert"                 ? Architecture::kEncoder
                   : s.name == "vision_transformer" ? Architecture::kVisionTransformer
                                                    : Architecture::kDecoder;
  s.hidden_size = m.get_int("hidden_size", 1, kMaxWidth);
  s.num_hidden_layers = m.get_int("num_hidden_layers", 1, kMaxLayers);
  s.num_heads = m.get_int("num_heads", 1, kMaxWidth);
  s.filter_size = m.get_int("filter_size", 1, kMaxWidth);
  if (s.hidden_size % s.num_heads != 0)
    throw InputError(fmt::format("{} = {}: num_heads must divide hidden_size = {}",
                                 m.where("num_heads"), s.num_heads, s.hidden_size));
  s.num_kv_heads = s.num_heads;
  if (auto extra = m.optional_child("extra_attention_params")) {
    if (auto groups = extra->get_int_opt("num_kv_groups", 1, kMaxWidth)) {
      if (s.num_heads % *groups != 0)
        throw InputError(fmt::format("{} = {}: must divide num_heads = {}",
                                     extra->where("num_kv_groups"), *groups, s.num_heads));
      s.num_kv_heads = *groups;
    }
  }
  const std::vector<std::string> nonlinearities{"gelu", "gelu_new", "relu", "silu", "swiglu",
                                                "geglu", "reglu", "tanh"};
  s.nonlinearity = m.get_choice(m.has("encoder_nonlinearity") ? "encoder_nonlinearity"
                                                               : "nonlinearity",
                                nonlinearities, "gelu");
  s.gated_ffn = s.nonlinearity == "swiglu" || s.nonlinearity == "geglu" ||
                s.nonlinearity == "reglu";
  s.share_embedding_weights = m.get_bool("share_embedding_weights", s.name != "llama");
  s.position_embedding_type =
      m.get_choice("position_embedding_type",
                   {"learned", "fixed", "rotary", "alibi", "relative"},
                   s.architecture == Architecture::kDecoder && !family_has_biases(s.name)
                       ? "rotary"
                       : "learned");
  s.biases = family_has_biases(s.name);
  if (auto moe = m.optional_child("moe")) {
    s.num_experts = moe->get_int_opt("num_experts", 1, 10000).value_or(1);
    s.top_k = moe->get_int_opt("top_k", 1, 10000).value_or(1);
    if (s.top_k > s.num_experts)
      throw InputError(fmt::format("{} = {}: top_k cannot exceed num_experts = {}",
                                   moe->where("top_k"), s.top_k, s.num_experts));
  }

  if (s.architecture == Architecture::kVisionTransformer) {
    read_vision(m, s);
    s.patch_size = square_side(m, "patch_size", 16);
    if (s.image_size % s.patch_size != 0)
      throw InputError(fmt::format("{} = {}: must divide image_size = {}", m.where("patch_size"),
                                   s.patch_size, s.image_size));
    const std::int64_t side = s.image_size / s.patch_size;
    s.seq_len = side * side + (m.get_bool("prepend_cls_token", true) ? 1 : 0);
    if (s.seq_len > kMaxSequence)
      throw InputError(fmt::format("{}: {} patches per image is more than {}", file, s.seq_len,
                                   kMaxSequence));
    s.max_position_embeddings = s.seq_len;
    if (seq_len) s.seq_len = *seq_len;
    return s;
  }

  s.vocab_size = m.get_int("vocab_size", 1, kMaxVocab);
  s.max_position_embeddings = m.get_int("max_position_embeddings", 1, kMaxSequence);
  s.seq_len = s.max_position_embeddings;
  const auto data = train_data_block(root, file);
  if (data)
    if (auto msl = data->get_int_opt("max_sequence_length", 1, kMaxSequence)) s.seq_len = *msl;
  if (seq_len) s.seq_len = *seq_len;
  s.head_tokens = s.seq_len;
  if (s.architecture == Architecture::kEncoder && data)
    if (auto preds = data->get_int_opt("max_predictions_per_seq", 1, kMaxSequence))
      s.head_tokens = std::min(*preds, s.seq_len);
  if (s.position_embedding_type == "learned" && s.seq_len > s.max_position_embeddings)
    throw InputError(fmt::format(
        "{}: sequence length {} exceeds max_position_embeddings = {} of a model with learned "
        "position embeddings",
        file, s.seq_len, s.max_position_embeddings));
  return s;
}

ModelSpec load_model(const std::string& file, std::optional<std::int64_t> seq_len) {
  return read_model(io::load_yaml_file(file), file, seq_len);
}

}  // namespace csx::model
