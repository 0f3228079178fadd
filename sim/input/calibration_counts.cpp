// Calibration runs per family and platform, from the fit data.
#include "input/calibration_counts.hpp"

#include <fmt/format.h>
#include <filesystem>

#include "common/errors.hpp"
#include "input/model_loader.hpp"
#include "input/yaml_block.hpp"
#include "model/prediction_interval.hpp"

namespace csx::io {

std::int64_t CalibrationCounts::runs_of_family(const std::string& name) const {
  const auto it = family.find(name);
  return it == family.end() ? 0 : it->second;
}

std::int64_t CalibrationCounts::runs_on_platform(const std::string& name) const {
  const auto it = platform.find(name);
  return it == platform.end() ? 0 : it->second;
}

CalibrationCounts read_calibration_counts(const std::string& file, const std::string& data_dir) {
  namespace fs = std::filesystem;
  CalibrationCounts counts;
  counts.file = file;
  const YAML::Node root_node = load_yaml_file(file);
  if (!root_node.IsMap())
    throw InputError(fmt::format("{}: expected a YAML mapping of keys at the top level", file));
  const Block root(file, "", root_node);
  root.require_known_keys(kReferenceLists);
  if (!root.has_value("measurements"))
    throw InputError(fmt::format(
        "{}: no measurements list; the prediction intervals are derived from it", file));
  const YAML::Node list = root_node["measurements"];
  if (!list.IsSequence())
    throw InputError(fmt::format("{}: expected a list of entries", root.where("measurements")));
  std::map<std::string, std::string> family_of_file;  // a model file is read once
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].IsMap())
      throw InputError(fmt::format("{}:{}: measurements[{}]: expected an entry (a mapping)", file,
                                   list[i].Mark().line + 1, i));
    const Block b(file, fmt::format("measurements[{}]", i), list[i]);
    const std::string model = b.get_string("model");
    const std::string platform = b.get_string("platform");
    std::string path = (fs::path(data_dir) / model).string();
    if (!fs::exists(path)) path = (fs::path(file).parent_path() / model).string();
    if (!fs::exists(path) && model.rfind("../", 0) == 0) continue;
    auto it = family_of_file.find(path);
    if (it == family_of_file.end())
      it = family_of_file.emplace(path, model::interval_family(model::load_model(path).name)).first;
    ++counts.family[it->second];
    ++counts.platform[platform];
  }
  return counts;
}

const CalibrationCounts& calibration_counts(const std::string& data_dir) {
  static std::map<std::string, CalibrationCounts> read;
  auto it = read.find(data_dir);
  if (it == read.end()) {
    const auto file =
        (std::filesystem::path(data_dir) / "platforms/calibration/measurements.yaml").string();
    it = read.emplace(data_dir, read_calibration_counts(file, data_dir)).first;
  }
  return it->second;
}

}  // namespace csx::io
