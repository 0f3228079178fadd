// Vision and multimodal families: ViT, DINOv2, DiT, LLaVA-style models, ResNet-50, fc_mnist.
#include <fmt/format.h>
#include <regex>

#include "common/errors.hpp"
#include "common/whole_number.hpp"
#include "input/family_readers.hpp"
#include "input/stack_reader.hpp"

namespace csx::model {
namespace {

// A side in pixels: an integer or [height, width] (square only).
std::int64_t square_side(const io::Block& b, const std::string& key, std::int64_t fallback) {
  if (!b.has_value(key)) return fallback;
  const YAML::Node n = b.node()[key];
  if (n.IsSequence()) {
    if (n.size() != 2 || !n[0].IsScalar() || !n[1].IsScalar())
      throw InputError(fmt::format("{}: expected [height, width]", b.where(key)));
    const auto hgt = csx::parse_whole(n[0].Scalar(), b.where(key), 1);
    const auto wid = csx::parse_whole(n[1].Scalar(), b.where(key), 1);
    if (hgt > kMaxSequence)
      throw InputError(fmt::format("{} = {}: must be at most {}", b.where(key), hgt, kMaxSequence));
    if (hgt != wid)
      throw InputError(
          fmt::format("{} = [{}, {}]: only square images are modelled", b.where(key), hgt, wid));
    return hgt;
  }
  return b.get_int(key, 1, kMaxSequence);
}

// The first map of a list-valued key (image_model_trunks, image_models, heads).
io::Block first_of(const io::Block& b, const std::string& key) {
  (void)b.has(key);  // consulted
  const YAML::Node n = b.node()[key];
  if (!n.IsSequence() || n.size() == 0 || !n[0].IsMap())
    throw InputError(fmt::format("{}: expected a list of mappings", b.where(key)));
  return io::Block(b.file(), b.key_path() + "." + key + "[0]", n[0]);
}

// The entries of a list-valued key (DINO trunks, heads) that are trained: stop_grad false or
// absent. The teacher's copies (stop_grad true) only run forward.
std::vector<io::Block> trained_of(const io::Block& b, const std::string& key) {
  std::vector<io::Block> out;
  if (!b.has_value(key) || !b.node()[key].IsSequence()) return out;
  const YAML::Node n = b.node()[key];
  for (std::size_t i = 0; i < n.size(); ++i) {
    if (!n[i].IsMap()) continue;
    io::Block e(b.file(), fmt::format("{}.{}[{}]", b.key_path(), key, i), n[i]);
    if (!e.get_bool("stop_grad", false)) out.push_back(e);
  }
  return out;
}

// Tokens of an image: patches, plus the class token when prepended.
std::int64_t image_tokens(const io::Block& b, std::int64_t image, std::int64_t patch, bool cls) {
  if (image % patch != 0)
    throw InputError(
        fmt::format("{} = {}: must divide image_size = {}", b.where("patch_size"), patch, image));
  const std::int64_t side = image / patch;
  return side * side + (cls ? 1 : 0);
}

// A ViT encoder stack from an image model block (ViTModel, MultiImageViTModel).
Stack vision_stack(const io::Block& b, ModelSpec& s, const std::string& name) {
  Stack st = read_stack(b, {}, {}, name, s);
  st.causal = false;
  s.image_size = square_side(b, "image_size", 224);
  s.patch_size = square_side(b, "patch_size", 16);
  s.num_channels = b.get_int_opt("num_channels", 1, 1000).value_or(3);
  st.tokens = image_tokens(b, s.image_size, s.patch_size, b.get_bool("prepend_cls_token", true));
  return st;
}

// `freeze` patterns (regular expressions over module names) that match `module`.
bool frozen(const io::Block& m, const std::string& module) {
  if (!m.has_value("freeze") || !m.node()["freeze"].IsSequence()) return false;
  for (const auto& p : m.node()["freeze"]) {
    if (!p.IsScalar()) continue;
    try {
      if (std::regex_search(module, std::regex(p.Scalar()))) return true;
    } catch (const std::regex_error&) {
      throw InputError(
          fmt::format("{} = '{}': not a regular expression", m.where("freeze"), p.Scalar()));
    }
  }
  return false;
}

}  // namespace

void read_vision_transformer(const FamilyInput& in, ModelSpec& s) {
  if (s.name == "dino") {
    // DINOv2 (Oquab et al. 2023): a student ViT on global and local crops, its EMA teacher
    // forward on the global crops only.
    const auto trained = trained_of(in.model, "image_model_trunks");
    const io::Block trunk =
        (trained.empty() ? first_of(in.model, "image_model_trunks") : trained.front())
            .child("image_model");
    Stack st = vision_stack(trunk, s, "student");
    std::int64_t globals = 2, locals = 8, global_side = s.image_size, local_side = 0;
    if (in.train_data)
      if (auto ssl = in.train_data->optional_child("ssl_transform"))
        if (auto crop = ssl->optional_child("multi_crop_transform")) {
          globals = crop->get_int_opt("global_num_crops", 1, 1000).value_or(2);
          locals = crop->get_int_opt("local_num_crops", 0, 1000).value_or(8);
          global_side =
              crop->get_int_opt("global_image_size", 1, kMaxSequence).value_or(global_side);
          local_side = crop->get_int_opt("local_image_size", 1, kMaxSequence).value_or(0);
        }
    if (local_side == 0) local_side = std::max<std::int64_t>(s.patch_size, global_side * 96 / 224);
    local_side -= local_side % s.patch_size;
    const std::int64_t g =
        image_tokens(trunk, global_side - global_side % s.patch_size, s.patch_size, true);
    const std::int64_t l = image_tokens(trunk, local_side, s.patch_size, true);
    st.tokens = globals * g + locals * l;
    st.forward_only_tokens = globals * g;
    st.keys_per_query =
        static_cast<double>(globals * g * g + locals * l * l) / static_cast<double>(st.tokens);
    if (in.seq_len) st.tokens = *in.seq_len;
    s.seq_len = st.tokens;
    s.seq_len_from =
        fmt::format("{} global crops of {} tokens + {} local crops of {}", globals, g, locals, l);
    s.head = HeadKind::kDinoProjection;
    s.image_tokens = globals + locals;
    // DINOv2 defaults (Oquab et al. 2023): 3 layers, 2048 wide, bottleneck 256, 65,536 outputs.
    s.projection_output = 65536;
    s.projection_hidden = 2048;
    s.projection_bottleneck = 256;
    s.projection_layers = 3;
    s.projection_heads = 2;  // a DINO and an iBOT head
    if (in.model.has_value("heads") && in.model.node()["heads"].IsSequence()) {
      const auto heads = trained_of(in.model, "heads");
      s.projection_heads = static_cast<std::int64_t>(heads.size());
      if (!heads.empty())
        if (auto hm = heads.front().optional_child("head_model")) {
          s.projection_output = hm->get_int_opt("output_size", 1, kMaxVocab).value_or(65536);
          s.projection_hidden = hm->get_int_opt("hidden_size", 1, kMaxWidth).value_or(2048);
          s.projection_bottleneck = hm->get_int_opt("bottleneck_size", 1, kMaxWidth).value_or(256);
          s.projection_layers = hm->get_int_opt("num_layers", 1, 100).value_or(3);
        }
    }
    s.modelled.push_back("DINOv2 student on all crops, EMA teacher forward on global crops");
    s.stacks = {st};
    return;
  }
  Stack st = vision_stack(in.model, s, "encoder");
  s.num_classes = in.model.get_int_opt("num_classes", 1, kMaxVocab).value_or(1000);
  s.max_position_embeddings = st.tokens;
  s.seq_len_from =
      fmt::format("({} / {})^2 patches{}", s.image_size, s.patch_size,
                  in.model.get_bool("prepend_cls_token", true) ? " + class token" : "");
  if (in.seq_len) {
    st.tokens = *in.seq_len;
    s.seq_len_from = "--seq-len";
  }
  s.seq_len = st.tokens;
  s.head = HeadKind::kClassifier;
  s.stacks = {st};
}

void read_diffusion_transformer(const FamilyInput& in, ModelSpec& s) {
  // DiT (Peebles & Xie 2023): patches of a VAE latent, adaLN-Zero blocks.
  const io::Block& m = in.model;
  StackKeys keys;
  keys.nonlinearity = "encoder_nonlinearity";
  Stack st = read_stack(m, keys, {}, "encoder", s);
  st.causal = false;
  st.adaptive_norm = true;
  std::int64_t latent = 32;
  s.num_channels = 4;
  if (auto vae = m.optional_child("vae")) {
    latent = square_side(*vae, "latent_size", 32);
    s.num_channels = vae->get_int_opt("latent_channels", 1, 1000).value_or(4);
  }
  s.patch_size = square_side(m, "patch_size", 2);
  s.image_size = latent;
  st.tokens = image_tokens(m, latent, s.patch_size, false);
  s.seq_len_from = fmt::format("({} / {})^2 latent patches", latent, s.patch_size);
  if (in.seq_len) {
    st.tokens = *in.seq_len;
    s.seq_len_from = "--seq-len";
  }
  s.seq_len = st.tokens;
  s.num_classes = m.get_int_opt("num_classes", 1, kMaxVocab).value_or(1000);
  s.head = HeadKind::kNoisePrediction;
  s.modelled.push_back("adaLN-Zero conditioning");
  s.stacks = {st};
}

void read_multimodal(const FamilyInput& in, ModelSpec& s) {
  const io::Block& m = in.model;
  std::optional<io::Block> image;
  if (s.name == "multimodal_simple") {
    // Release 2.10: image_models[0].image_encoder; Release 2.3: image_models[0].image_model,
    // itself a list.
    const io::Block entry = first_of(m.child("image_model_list"), "image_models");
    if (entry.has_value("image_encoder"))
      image = entry.child("image_encoder");
    else if (entry.has_value("image_model") && entry.node()["image_model"].IsSequence())
      image = first_of(entry, "image_model");
    else
      image = entry.child("image_model");
  } else {
    image = m.child("image_model");
  }
  const io::Block text_block = m.child("text_model");
  Stack vision = vision_stack(*image, s, "vision");
  StackDefaults text_defaults;
  const std::string text_name = text_block.get_string_opt("name").value_or("LlamaModel");
  if (text_name.find("Llama") != std::string::npos ||
      text_name.find("Mistral") != std::string::npos) {
    text_defaults.biases = false;
    text_defaults.layer_norm = false;
    text_defaults.position = "rotary";
  }
  Stack text = read_stack(text_block, {}, text_defaults, "text", s);
  s.vocab_size = text_block.get_int("vocab_size", 1, kMaxVocab);
  s.max_position_embeddings = text_block.get_int("max_position_embeddings", 1, kMaxSequence);
  const auto seq =
      training_seq_len(in.train_data, "max_sequence_length", in.file, in.seq_len,
                       s.max_position_embeddings, "text_model.max_position_embeddings");
  text.tokens = seq.value;
  s.seq_len = seq.value;
  s.seq_len_from = seq.from;
  s.share_embedding_weights = text_block.get_bool("share_embedding_weights", false);
  s.image_tokens = vision.tokens - 1;
  // The projector's layer widths (projector.image_model.layers_units), else two to the text width.
  s.projector_units = {text.hidden_size, text.hidden_size};
  if (auto proj = m.optional_child("projector"))
    if (auto pim = proj->optional_child("image_model"))
      if (pim->has_value("layers_units") && pim->node()["layers_units"].IsSequence()) {
        s.projector_units.clear();
        for (const auto& u : pim->node()["layers_units"])
          s.projector_units.push_back(
              parse_whole(u.Scalar(), pim->where("layers_units"), 1, kMaxWidth));
        if (s.projector_units.empty()) s.projector_units = {text.hidden_size};
      }
  vision.trainable = !frozen(m, "image_model.image_model_list.image_models.0.image_encoder");
  text.trainable = !frozen(m, "text_model.model");
  s.head = HeadKind::kLanguageModel;
  s.head_tokens = seq.value;
  s.modelled.push_back(
      fmt::format("image encoder {}trained, text model {}trained, projector trained",
                  vision.trainable ? "" : "not ", text.trainable ? "" : "not "));
  s.stacks = {vision, text};
}

void read_resnet(const FamilyInput& in, ModelSpec& s) {
  s.depth = in.model.get_int_opt("depth").value_or(50);
  if (s.depth != 50)
    throw InputError(
        fmt::format("{} = {}: only ResNet-50 is modelled", in.model.where("depth"), s.depth));
  if (in.seq_len)
    throw InputError(
        fmt::format("{}: --seq-len applies to transformer models; this is a CNN", in.file));
  // csxsim's ResNet-50 has batch normalization (He et al. 2016), which decides its batching.
  (void)in.model.get_choice("norm_layer", {"batchnorm2d"}, "batchnorm2d");
  s.num_classes = in.model.get_int_opt("num_classes", 1, kMaxVocab).value_or(1000);
  s.num_channels = in.model.get_int_opt("num_channels", 1, 1000).value_or(3);
  s.image_size = square_side(in.model, "image_size", 224);
  s.seq_len = 1;
  s.seq_len_from = "one image";
}

void read_mlp(const FamilyInput& in, ModelSpec& s) {
  if (in.seq_len)
    throw InputError(
        fmt::format("{}: --seq-len applies to transformer models; this is an MLP", in.file));
  s.depth = in.model.get_int_opt("depth", 1, kMaxLayers).value_or(10);
  s.mlp_width = in.model.get_int_opt("hidden_size", 1, kMaxWidth).value_or(50);
  s.image_size = 28;  // MNIST (LeCun et al. 1998): 28 x 28 grey images, 10 classes
  s.num_channels = 1;
  s.num_classes = 10;
  s.seq_len = 1;
  s.seq_len_from = "one image";
}

}  // namespace csx::model
