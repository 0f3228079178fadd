// The data folder, model arguments and a scenario's warnings.
#include "app/data_folder.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "common/did_you_mean.hpp"
#include "common/errors.hpp"

namespace csx::app {

std::string data_dir() {
  if (const char* env = std::getenv("CSXSIM_DATA_DIR"); env && *env) return env;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && exe.filename() == "csxsim") {
    const fs::path tree = exe.parent_path() / CSXSIM_DATA_DIR_FROM_BINARY;
    if (fs::is_directory(tree / "platforms", ec) && fs::is_directory(tree / "models", ec)) {
      std::string dir = tree.lexically_normal().string();
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      return dir;
    }
  }
  return CSXSIM_DATA_DIR;
}

void check_data_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* env = std::getenv("CSXSIM_DATA_DIR"); env && *env)
    for (const char* folder : {"platforms", "models"})
      if (!fs::is_directory(fs::path(env) / folder, ec))
        throw InputError(fmt::format(
            "CSXSIM_DATA_DIR={}: no {}/ folder there (the data folder holds platforms/ and "
            "models/; unset the variable to use csxsim's own tree)",
            env, folder));
}

std::string default_reference() {
  return (std::filesystem::path(data_dir()) / "platforms/calibration/measurements.yaml").string();
}

std::string resolve_model_path(const std::string& arg) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A file of that name wins; a folder of that name does not hide a models/ name.
  if (fs::is_regular_file(arg, ec) || arg.find('/') != std::string::npos || arg.ends_with(".yaml"))
    return arg;
  check_data_dir();
  const fs::path models = fs::path(data_dir()) / "models";
  const fs::path shipped = models / (arg + ".yaml");
  if (fs::exists(shipped, ec)) return shipped.string();
  // Its checks say what it is (a dangling link or a loop of links is named as one).
  if (fs::exists(arg, ec) || fs::is_symlink(fs::symlink_status(arg, ec))) return arg;
  if (arg.empty()) throw InputError("'': an empty path, expected a scenario or model file");
  if (arg == "-")
    throw InputError(
        "-: csxsim reads a scenario or model from a file, not from standard input; name a file");
  // A file beside it named like it (its .yaml left out), else a models/ name.
  std::string hint = did_you_mean_file(arg, {});
  if (hint.empty()) hint = did_you_mean_model(arg, {}, models);
  const char* env = std::getenv("CSXSIM_DATA_DIR");
  throw InputError(fmt::format("{}: no such file, and no model of that name in {}{}", arg,
                               env && *env ? models.string() + "/ (CSXSIM_DATA_DIR)" : "models/",
                               hint));
}

void print_warnings(const io::Scenario& scenario) {
  for (const auto& w : scenario.warnings) fmt::print(stderr, "warning: {}\n", w);
}

}  // namespace csx::app
