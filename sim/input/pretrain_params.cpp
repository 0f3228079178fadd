// model.pretrain_params_path: the pretraining config's model block under the file's own keys.
#include "input/pretrain_params.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>

#include "common/errors.hpp"

namespace csx::model {
namespace {

namespace fs = std::filesystem;

// Where the Model Zoo looks for `ref`: the model's folder (the parent of configs/), then the
// file's own folder.
std::vector<fs::path> candidates(const std::string& ref, const std::string& file) {
  const fs::path p(ref);
  if (p.is_absolute()) return {p};
  const fs::path dir = fs::absolute(file).lexically_normal().parent_path();
  std::vector<fs::path> out;
  if (dir.filename() == "configs") out.push_back((dir.parent_path() / p).lexically_normal());
  out.push_back((dir / p).lexically_normal());
  return out;
}

YAML::Node resolve(const io::Block& m, const std::string& file, std::vector<fs::path>& chain,
                   std::vector<std::string>& notes, std::vector<std::string>& warnings,
                   std::vector<std::string>& files) {
  if (!m.has_value("pretrain_params_path")) return m.node();
  const std::string ref = m.get_string("pretrain_params_path");
  const std::string where = m.where("pretrain_params_path");
  const auto tries = candidates(ref, file);
  std::error_code ec;
  const auto found = std::find_if(tries.begin(), tries.end(),
                                  [&](const fs::path& p) { return fs::is_regular_file(p, ec); });
  if (found == tries.end()) {
    std::string tried;
    for (const auto& t : tries) tried += (tried.empty() ? "" : " or ") + t.string();
    throw InputError(fmt::format(
        "{} = '{}': the pretraining config this fine-tuning file extends does not exist: {} "
        "(the Model Zoo resolves the path against the model's folder, the parent of configs/)",
        where, ref, tried));
  }
  const fs::path path = fs::weakly_canonical(*found, ec);
  if (std::find(chain.begin(), chain.end(), path) != chain.end()) {
    std::string cycle;
    for (const auto& c : chain) cycle += c.string() + " -> ";
    throw InputError(fmt::format(
        "{} = '{}': circular reference: {}{} (each file extends the next; one must be a "
        "pretraining config with its own sizes)",
        where, ref, cycle, path.string()));
  }
  chain.push_back(path);
  const std::string base_file = found->string();
  YAML::Node root;
  try {
    root = io::load_modelzoo_yaml_file(base_file, warnings);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{} = '{}': the pretraining config it extends cannot be read: {}",
                                 where, ref, e.what()));
  }
  files.push_back(base_file);
  const io::Block top(base_file, "", root);
  if (!top.has_value("model") || !root["model"].IsMap())
    throw InputError(
        fmt::format("{} = '{}': {} has no model block to extend", where, ref, base_file));
  const YAML::Node base = resolve(top.child("model"), base_file, chain, notes, warnings, files);
  // dict.update: the pretraining file's keys, then this file's own over them.
  YAML::Node merged(YAML::NodeType::Map);
  for (const auto& kv : base) {
    const std::string key = kv.first.Scalar();
    if (key != "use_vsl" && !m.node()[key]) merged[key] = kv.second;
  }
  for (const auto& kv : m.node()) merged.force_insert(kv.first, kv.second);
  notes.push_back(fmt::format(
      "model keys of the pretraining config {} (model.pretrain_params_path), this file's own "
      "keys over them",
      base_file));
  return merged;
}

}  // namespace

YAML::Node with_pretraining(const io::Block& model, const std::string& file,
                            std::vector<std::string>& notes, std::vector<std::string>& warnings,
                            std::vector<std::string>& files) {
  std::error_code ec;
  std::vector<fs::path> chain{fs::weakly_canonical(fs::absolute(file), ec)};
  return resolve(model, file, chain, notes, warnings, files);
}

}  // namespace csx::model
