// The Model Zoo tables, parsed once from the compiled-in JSON.
#include "input/modelzoo_data.hpp"

#include <map>
#include <nlohmann/json.hpp>

#include "modelzoo_json.hpp"

namespace csx::model {
namespace {

const nlohmann::json& tables() {
  static const nlohmann::json j = nlohmann::json::parse(kModelzooJson);
  return j;
}

Architecture architecture_named(const std::string& name) {
  using A = Architecture;
  static const std::map<std::string, Architecture> names{
      {"decoder", A::kDecoder},
      {"encoder", A::kEncoder},
      {"encoder_decoder", A::kEncoderDecoder},
      {"vision_transformer", A::kVisionTransformer},
      {"diffusion_transformer", A::kDiffusionTransformer},
      {"multimodal", A::kMultimodal},
      {"resnet", A::kResNet},
      {"mlp", A::kMlp}};
  return names.at(name);
}

}  // namespace

const std::vector<Family>& model_families() {
  static const std::vector<Family> families = [] {
    std::vector<Family> f;
    for (const auto& e : tables().at("families"))
      f.push_back({e.at("name"), architecture_named(e.at("architecture")), e.at("modelled"),
                   e.at("structure")});
    return f;
  }();
  return families;
}

const Family* find_family(const std::string& name) {
  for (const auto& f : model_families())
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const auto& f : model_families()) names.push_back(f.name);
  return names;
}

const std::vector<FamilyKeys>& modelzoo_model_keys() {
  static const std::vector<FamilyKeys> table = [] {
    std::vector<FamilyKeys> t;
    for (const auto& e : tables().at("model_blocks"))
      t.push_back({e.at("family"), e.at("source"), e.at("keys").get<std::vector<std::string>>()});
    return t;
  }();
  return table;
}

const std::vector<std::string>& modelzoo_dataloader_keys() {
  static const std::vector<std::string> keys =
      tables().at("dataloader_keys").get<std::vector<std::string>>();
  return keys;
}

const VocabFile* known_vocab_file(const std::string& path) {
  static const std::vector<VocabFile> files = [] {
    std::vector<VocabFile> v;
    for (const auto& e : tables().at("vocab_files").at("files"))
      v.push_back({e.at("file"), e.at("size"), e.at("source")});
    return v;
  }();
  for (const auto& f : files)
    if (path.size() >= f.file.size() &&
        path.compare(path.size() - f.file.size(), f.file.size(), f.file) == 0 &&
        (path.size() == f.file.size() || path[path.size() - f.file.size() - 1] == '/'))
      return &f;
  return nullptr;
}

}  // namespace csx::model
