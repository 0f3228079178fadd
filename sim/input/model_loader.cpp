// Model Zoo model blocks -> ModelSpec: find the block and the family, check the keys against
// what the Model Zoo defines (warnings, never refusals), and read the family's structure.
#include "input/model_loader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "input/family_readers.hpp"
#include "input/modelzoo_data.hpp"
#include "input/pretrain_params.hpp"
#include "input/stack_reader.hpp"
#include "input/yaml_block.hpp"

namespace csx::model {
YAML::Node trainer_node(const YAML::Node& root, const std::string& file) {
  YAML::Node t = root["trainer"];
  // reset rebinds t; assignment would overwrite the file's node with its first phase.
  if (t.IsSequence() && t.size() > 0 && t[0].IsMap())
    t.reset(t[0]["trainer"] ? t[0]["trainer"] : t[0]);
  if (!t.IsMap())
    throw InputError(
        fmt::format("{} is {}, expected a mapping (the Trainer layout: trainer.init, trainer.fit)",
                    io::Block(file, "", root).where("trainer"),
                    t.IsSequence() && t.size() == 0 ? "an empty list"
                    : t.IsSequence()                ? "a list whose first entry is no mapping"
                    : t.IsScalar()                  ? "a single value"
                                                    : "empty"));
  // No Model Zoo file holds both layouts; reading one would silently drop the other's model.
  for (const char* legacy : {"model", "train_input"})
    for (const auto& kv : root)
      if (kv.first.IsScalar() && kv.first.Scalar() == legacy)
        throw InputError(fmt::format(
            "{}: the file holds both layouts: trainer: (Trainer layout, Release 2.4+) and {}: at "
            "line {} (older layout); a file holds one layout: keep one of them",
            io::Block(file, "", root).where("trainer"), legacy, kv.first.Mark().line + 1));
  return t;
}

namespace {

// trainer.init.model (Trainer layout, Release 2.4+) or model (legacy layout).
io::Block model_block(const YAML::Node& root, const std::string& file) {
  io::Block top(file, "", root);
  if (top.has_value("trainer")) {
    io::Block trainer(file, "trainer", trainer_node(root, file));
    return trainer.child("init").child("model");
  }
  if (top.has_value("model")) return top.child("model");
  throw InputError(fmt::format(
      "{}: no model found: expected trainer.init.model (Trainer layout) or model (legacy "
      "layout)",
      file));
}

// The train dataloader block, if any: trainer.fit.train_dataloader or train_input.
std::optional<io::Block> train_data_block(const YAML::Node& root, const std::string& file) {
  io::Block top(file, "", root);
  if (top.has_value("trainer")) {
    io::Block trainer(file, "trainer", trainer_node(root, file));
    auto fit = trainer.optional_child("fit");
    if (!fit || !fit->has_value("train_dataloader")) return std::nullopt;
    YAML::Node d = fit->node()["train_dataloader"];
    if (d.IsSequence() && d.size() > 0) d = d[0];
    if (!d.IsMap()) return std::nullopt;
    return io::Block(file, "trainer.fit.train_dataloader", d);
  }
  return top.optional_child("train_input");
}

// A family named by the Model Zoo's layout: the folder that holds `configs/`, or that folder with
// its parent (bert/classifier/configs/), or its parent (gptj/continuous_pretraining/configs/).
std::optional<std::string> family_in_layout(const std::string& path) {
  const auto at = path.rfind("/configs/");
  if (at == std::string::npos) return std::nullopt;
  std::vector<std::string> parts;
  std::string part;
  for (const char c : path.substr(0, at) + "/") {
    if (c != '/') {
      part += c;
    } else if (!part.empty()) {
      parts.push_back(part);
      part.clear();
    }
  }
  const std::size_t n = parts.size();
  // Release R_1.7.0: <family>/fine_tuning/<head>/configs/ holds a fine-tuning head
  // (bert/fine_tuning/qa is bert/qa); a decoder fine-tuned on a generative task keeps its own
  // structure and LM head (gptj/fine_tuning/abstractive_summarization is gptj).
  if (n >= 3 && parts[n - 2] == "fine_tuning") {
    const std::string head = parts[n - 3] + "/" + parts[n - 1];
    if (find_family(head)) return head;
    const Family* base = find_family(parts[n - 3]);
    if (base && base->architecture == Architecture::kDecoder) return parts[n - 3];
    return std::nullopt;
  }
  std::vector<std::string> tries;
  if (n >= 2) tries.push_back(parts[n - 2] + "/" + parts[n - 1]);
  if (n >= 1) tries.push_back(parts[n - 1]);
  if (n >= 2) tries.push_back(parts[n - 2]);
  for (const auto& t : tries)
    if (find_family(t)) return t;
  return std::nullopt;
}

// The longest family name that the file's stem holds as a word.
std::optional<std::string> family_in_name(const std::string& text) {
  std::optional<std::string> best;
  for (const auto& f : model_families()) {
    const std::string name(f.name);
    bool hit = false;
    for (auto pos = text.find(name); pos != std::string::npos; pos = text.find(name, pos + 1)) {
      const bool start = pos == 0 || !std::isalpha(static_cast<unsigned char>(text[pos - 1]));
      const auto end = pos + name.size();
      const bool stop = end == text.size() || !std::isalpha(static_cast<unsigned char>(text[end]));
      if (start && stop) hit = true;
    }
    if (hit && (!best || name.size() > best->size())) best = name;
  }
  return best;
}

// A decoder without a name: the closest family by the structure its keys give.
// A decoder without a name: the closest family by the markers its keys carry (each family's
// Release 2.3 config class and shipped configs; docs/modelzoo.md#model-zoo-files).
std::string decoder_by_keys(const io::Block& m) {
  const auto str = [&](const char* k) { return lowercase(m.get_string_opt(k).value_or("")); };
  const std::string pos = str("position_embedding_type"), nl = str("nonlinearity"),
                    norm = str("norm_type"), module = str("attention_module");
  if (m.has_value("dpo") || m.has("model_name")) return "dpo";
  if (m.has_value("moe") || m.has_value("moe_params")) return "mixtral";
  // Gemma-2's own keys (Gemma2ModelConfig, Release 2.10.0): logit soft-capping, sandwich norms.
  if (m.has_value("attention_logit_softcapping") || m.has_value("final_logit_softcapping") ||
      m.get_bool("norm_first_sandwich", false))
    return "gemma2";
  if (m.has_value("attention_sliding_window_length")) return "mistral";
  if (pos == "alibi") {
    if (m.has("alibi_trainable_slopes")) return "bloom";
    if (norm == "biasless-layernorm") return "mpt";
    if (m.has("attention_kernel")) return "jais";
    if (nl == "swiglu") return "btlm";
    return "bloom";
  }
  if (pos == "rotary") {
    if (norm == "rmsnorm" || nl == "swiglu") return "llama";
    if (module == "multiquery_attention") return "falcon";
    if (m.get_bool("use_untied_layer_norm", false)) return "gpt_neox";
    return "gptj";
  }
  if (module == "multiquery_attention")
    return m.has("scale_qk_dot_by_layer_idx") ? "starcoder" : "santacoder";
  return "gpt3";
}

// "model.norm_layer = batchnorm2d" when a normalization key of the block names batch
// normalization (norm_layer, norm_type, normalization, ...), else nullopt.
std::optional<std::string> batch_norm_of(const io::Block& m) {
  if (!m.node().IsMap()) return std::nullopt;
  for (const auto& kv : m.node()) {
    if (!kv.first.IsScalar() || !kv.second.IsScalar()) continue;
    std::string key = kv.first.Scalar(), value = kv.second.Scalar();
    if (key.find("norm") == std::string::npos) continue;
    if (lowercase(value).find("batch") != std::string::npos)
      return fmt::format("{}.{} = {}", m.key_path(), key, value);
  }
  return std::nullopt;
}

struct Identified {
  std::string family;
  std::string from;
};

// model.name; else the DPO/DPR/multimodal markers; else the file's folder or name; else the
// structure of its keys, with a warning that it is a guess.
// The names the Model Zoo's config classes still accept for a family, with a deprecation
// warning there (Release 2.10.0: LlamaModelConfig, T5ForConditionalGenerationModelConfig and
// ViTModelConfig's `name` Literals).
std::optional<std::string> older_name_of(const std::string& name) {
  static const std::map<std::string, std::string> older{{"LlamaModel", "llama"},
                                                        {"T5ForConditionalGeneration", "t5"},
                                                        {"ViTModel", "vision_transformer"}};
  const auto it = older.find(name);
  return it == older.end() ? std::nullopt : std::optional<std::string>(it->second);
}

Identified named(const std::string& name, const std::string& key) {
  if (const auto family = older_name_of(name))
    return {*family, fmt::format("{} ('{}', the Model Zoo's older name of it)", key, name)};
  return {name, key};
}

Identified identify_family(const io::Block& m, const std::string& file, ModelSpec& s) {
  if (m.has_value("name")) {
    // The Trainer layout's deprecated model_name must agree, as the Model Zoo requires
    // (trainer/validate.py, Release 2.10.0).
    if (m.has_value("model_name") && !m.has_value("dpo") &&
        m.get_string("model_name") != m.get_string("name"))
      throw InputError(fmt::format(
          "{} = '{}' and {} = '{}': conflicting model names (model_name is the deprecated "
          "spelling of name; the Model Zoo refuses the pair too)",
          m.where("name"), m.get_string("name"), m.where("model_name"),
          m.get_string("model_name")));
    return named(m.get_string("name"), "model.name");
  }
  // model_name: name's spelling before Release 2.4 (a DPO file of Release 2.3 names its base
  // model with it, beside its dpo block).
  if (m.has_value("model_name") && !m.has_value("dpo"))
    return named(m.get_string("model_name"),
                 "model.model_name (the Model Zoo's deprecated spelling of model.name)");
  const std::string path = std::filesystem::absolute(file).lexically_normal().string();
  const std::string stem = std::filesystem::path(file).stem().string();
  auto folder = family_in_layout(path);
  auto in_name = family_in_name(stem);
  if (folder && in_name && *folder != *in_name) {
    const Family* a = find_family(*folder);
    const Family* b = find_family(*in_name);
    // gpt_neox files live in the gptj folder: a name of the same kind wins, unless the folder
    // is a head of the name's family (bert/classifier holds bert_base_classifier_mnli.yaml).
    if (a && b && a->architecture == b->architecture && folder->rfind(*in_name + "/", 0) != 0)
      return {*in_name, "the file name"};
  }
  if (folder) return {*folder, "the file's folder (<family>/configs/)"};
  if (in_name) return {*in_name, "the file name"};
  const auto has = [&](const char* k) { return m.has(k); };
  std::string guess;
  const bool linformer_attention =
      m.get_string_opt("attention_style").value_or("").rfind("linformer", 0) == 0;
  if (has("projected_dims") || linformer_attention)
    guess = "linformer";  // low-rank keys and values (Wang et al. 2020): refused by its family
  else if (has("dpo") || has("policy_model"))
    guess = "dpo";
  else if (has("q_encoder") || has("ctx_encoder"))
    guess = "dpr";
  else if (has("image_model_trunks"))
    guess = "dino";
  else if (has("image_model_list"))
    guess = "multimodal_simple";
  else if (has("image_model") && has("text_model"))
    guess = "llava";
  else if (has("src_vocab_size"))
    guess = m.get_string_opt("position_embedding_type").value_or("") == "relative" ? "t5"
                                                                                   : "transformer";
  else if (has("num_diffusion_steps") || has("vae"))
    guess = "dit";
  else if (has("patch_size") && has("image_size"))
    guess = "vision_transformer";
  else if (has("mlm_nonlinearity") || has("token_dropout") || has("mask_token_id"))
    guess = has("num_labels") || has("classifier_dropout") ? "esm2/classification" : "esm2";
  else if (has("encoder_nonlinearity") && has("vocab_size")) {
    if (has("encoder_output_dropout_rate") || has("include_padding_in_loss"))
      guess = "bert/token_classifier";
    else if (has("use_cls_bias"))
      guess = "bert/extractive_summarization";
    else if (has("num_labels") || has("problem_type") || has("task_dropout"))
      guess = "bert/classifier";
    else
      guess = "bert";
  } else if (has("depth") && !has("vocab_size"))
    guess = "fc_mnist";
  else if (has("embedding_size") && has("seq_len"))
    guess = "layers_api_demo";
  else if (has("vocab_size") && has("hidden_size"))
    guess = decoder_by_keys(m);
  else if (auto bn = batch_norm_of(m))
    throw InputError(fmt::format(
        "{}: a network with batch normalization ({}) that is not a family csxsim models: "
        "microbatching is not compatible with batch normalization "
        "(docs/rules.md#microbatching-rules), and of such networks csxsim models ResNet-50 only",
        file, *bn));
  else
    throw InputError(fmt::format(
        "{}: the model family cannot be told: no model.name, no family in the file's folder or "
        "name, and no family's keys (set model.name to one of {})",
        file, fmt::join(family_names(), ", ")));
  s.warnings.push_back(fmt::format(
      "{}: no model.name; read as family '{}', guessed from its keys (set model.name to be "
      "sure)",
      file, guess));
  return {guess, "its keys (a guess)"};
}

// The keys the Model Zoo defines for `family`'s model block (all families' keys when the
// table has no entry), plus csxsim's own.
std::vector<std::string> defined_keys(const std::string& family) {
  std::vector<std::string> keys{"name", "model_name"};  // model_name: name before 2.4
  if (family == "resnet")                               // csxsim's own CNN (models/resnet50.yaml)
    return {"name", "depth", "num_classes", "num_channels", "image_size", "norm_layer"};
  bool found = false;
  for (const auto& e : modelzoo_model_keys())
    if (e.family == family) {
      found = true;
      keys.insert(keys.end(), e.keys.begin(), e.keys.end());
    }
  if (!found)
    for (const auto& e : modelzoo_model_keys())
      if (e.family.find(':') == std::string_view::npos)
        keys.insert(keys.end(), e.keys.begin(), e.keys.end());
  // The field name of the `moe` alias (populated by either name).
  if (std::find(keys.begin(), keys.end(), "moe") != keys.end()) keys.emplace_back("moe_params");
  return keys;
}

// The maps at a dotted path below `b` (a list on the way stands for each of its maps).
void maps_at(const io::Block& b, const std::string& path, std::vector<io::Block>& out) {
  const auto dot = path.find('.');
  const std::string head = path.substr(0, dot);
  if (!b.node().IsMap() || !b.node()[head]) return;
  const YAML::Node n = b.node()[head];
  std::vector<io::Block> next;
  if (n.IsMap()) next.emplace_back(b.file(), b.key_path() + "." + head, n);
  if (n.IsSequence())
    for (std::size_t i = 0; i < n.size(); ++i)
      if (n[i].IsMap())
        next.emplace_back(b.file(), fmt::format("{}.{}[{}]", b.key_path(), head, i), n[i]);
  for (const auto& x : next) {
    if (dot == std::string::npos)
      out.push_back(x);
    else
      maps_at(x, path.substr(dot + 1), out);
  }
}

void check_model_keys(const io::Block& m, const std::string& family,
                      const std::vector<std::string>& known, ModelSpec& s) {
  m.warn_unknown_keys(known, false, s.warnings, family);
  // Nested blocks the tables know ("mixtral:moe", "llava:text_model", "dino:heads.head_model").
  for (const auto& e : modelzoo_model_keys()) {
    if (e.family.rfind(family + ":", 0) != 0) continue;
    std::vector<io::Block> blocks;
    const std::string path = e.family.substr(family.size() + 1);
    maps_at(m, path, blocks);
    if (path == "moe") maps_at(m, "moe_params", blocks);
    for (const auto& b : blocks) b.warn_unknown_keys(e.keys, false, s.warnings, family);
  }
}

// The reader of each kind of family (family_readers.hpp).
using Reader = void (*)(const FamilyInput&, ModelSpec&);
Reader reader_of(Architecture a) {
  using A = Architecture;
  static const std::map<Architecture, Reader> readers{
      {A::kDecoder, read_decoder},
      {A::kEncoder, read_encoder},
      {A::kEncoderDecoder, read_encoder_decoder},
      {A::kVisionTransformer, read_vision_transformer},
      {A::kDiffusionTransformer, read_diffusion_transformer},
      {A::kMultimodal, read_multimodal},
      {A::kResNet, read_resnet},
      {A::kMlp, read_mlp}};
  return readers.at(a);
}

// Refuses models whose counts would not fit the 64-bit arithmetic of the cost model: more than
// 1e15 parameters (far above any published model).
void check_size(const ModelSpec& s) {
  double params = 0;
  for (const auto& st : s.stacks) {
    params += static_cast<double>(s.vocab_size) * static_cast<double>(st.hidden_size);
    const double h = static_cast<double>(st.hidden_size), f = static_cast<double>(st.filter_size),
                 i = static_cast<double>(st.attention_width()),
                 e = static_cast<double>(st.num_experts + st.num_shared_experts);
    params += static_cast<double>(st.num_layers) * (4 * h * std::max(h, i) + 3 * e * h * f);
  }
  if (params > 1e15)
    throw InputError(fmt::format("{}: about {:.3g} parameters or more: csxsim models up to 1e15",
                                 s.source, params));
}

}  // namespace

const std::vector<std::string>& known_families() {
  static const std::vector<std::string> names = family_names();
  return names;
}

static void read_model_into(ModelSpec& s, const YAML::Node& root, const std::string& file,
                            std::optional<std::int64_t> seq_len) {
  if (seq_len && (*seq_len < 1 || *seq_len > kMaxSequence))
    throw InputError(fmt::format("--seq-len = {}: must be within [1, {}]", *seq_len, kMaxSequence));
  const io::Block own = model_block(root, file);
  std::vector<std::string> notes;
  const io::Block m(file, own.key_path(),
                    with_pretraining(own, file, notes, s.warnings, s.extends));
  (void)m.has("pretrain_params_path");  // read: not an ignored key
  s.source = file;
  s.label = std::filesystem::path(file).stem().string();
  const auto id = identify_family(m, file, s);
  const Family* family = find_family(id.family);
  if (!family)
    throw InputError(fmt::format(
        "{} = '{}': unknown model family{}; known families: {}", m.where("name"), id.family,
        did_you_mean(id.family, family_names()), fmt::join(family_names(), ", ")));
  if (!family->modelled) {
    const auto bn = batch_norm_of(m);
    throw InputError(fmt::format(
        "{}: model family '{}' is not modelled: {}{}", file, id.family, family->structure,
        bn ? fmt::format("; it also uses batch normalization ({}), and microbatching is not "
                         "compatible with batch normalization (docs/rules.md#microbatching-rules): "
                         "batch statistics need each system's whole batch in one "
                         "pass, as layer-pipelined execution runs it",
                         *bn)
           : ""));
  }
  s.name = id.family;
  s.family_from = id.from;
  s.architecture = family->architecture;
  const auto known = defined_keys(s.name);
  check_model_keys(m, s.name, known, s);
  s.modelled = notes;
  const FamilyInput in{m, train_data_block(root, file), file, seq_len};
  reader_of(family->architecture)(in, s);
  check_size(s);
  // Keys the Model Zoo defines that the reading never looked at: they change no cost, but
  // LoRA's adapters (Hu et al. 2021) do, and csxsim does not model them.
  for (const auto& kv : m.node()) {
    const std::string key = kv.first.Scalar();
    if (m.consulted().count(key) || std::find(known.begin(), known.end(), key) == known.end())
      continue;
    if (key == "lora_params")
      s.warnings.push_back(fmt::format(
          "{}: LoRA is not modelled: csxsim trains and updates every parameter, as full "
          "fine-tuning does (the adapters would train few weights: fewer weight gradients, "
          "MemoryX updates and optimizer state)",
          m.where(key)));
    else
      s.ignored_keys.push_back(key);
  }
}

ModelSpec read_model_unchecked(const YAML::Node& root, const std::string& file,
                               std::optional<std::int64_t> seq_len) {
  ModelSpec s;
  // The warnings so far (a duplicate key, a misspelled one) may explain an error.
  carrying_warnings(s.warnings, [&] { read_model_into(s, root, file, seq_len); });
  return s;
}

ModelSpec read_model(const YAML::Node& root, const std::string& file,
                     std::optional<std::int64_t> seq_len) {
  try {
    return read_model_unchecked(root, file, seq_len);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}: {}", file, e.mark.line + 1, e.msg));
  }
}

ModelSpec load_model(const std::string& file, std::optional<std::int64_t> seq_len) {
  std::vector<std::string> duplicates;
  const YAML::Node root = io::load_modelzoo_yaml_file(file, duplicates);
  ModelSpec s = carrying_warnings(duplicates, [&] { return read_model(root, file, seq_len); });
  s.warnings.insert(s.warnings.begin(), duplicates.begin(), duplicates.end());
  return s;
}

}  // namespace csx::model
