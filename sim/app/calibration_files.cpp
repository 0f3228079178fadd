// The platform files' calibration values: read with yaml-cpp, edited line by line.
#include "app/calibration_files.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <openssl/evp.h>
#include <yaml-cpp/yaml.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "input/yaml_block.hpp"
#include "report/atomic_file.hpp"

namespace csx::app {
namespace {

namespace fs = std::filesystem;

std::string platform_file(const std::string& data_dir, const std::string& platform) {
  return (fs::path(data_dir) / "platforms" / (platform + ".yaml")).string();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read", path));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The text with the value of `name:` replaced by `value` on the one line that sets it (leading
// blanks, the name, a colon); the rest of that line, a comment say, is kept.
std::string set_value(const std::string& text, const std::string& path, const std::string& name,
                      const std::string& value) {
  std::string out;
  int found = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto start = line.find_first_not_of(" \t");
    if (start != std::string::npos && line.compare(start, name.size() + 1, name + ":") == 0) {
      ++found;
      const auto colon = start + name.size() + 1;
      const auto v = line.find_first_not_of(" \t", colon);
      const auto end = v == std::string::npos ? line.size() : line.find_first_of(" \t", v);
      line = line.substr(0, colon) + " " + value +
             (end == std::string::npos ? std::string() : line.substr(end));
    }
    out += line + "\n";
  }
  if (found != 1)
    throw InputError(fmt::format("{}: {} appears on {} lines; expected one", path, name, found));
  return out;
}

// The text with its stamp line replaced by `stamp`, or `stamp` put above `calibration:`.
std::string set_stamp(const std::string& text, const std::string& path, const std::string& stamp) {
  const std::string marker = "# Fitted by tools/calibrate --write";
  std::string out;
  bool stamped = false;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(marker, 0) == 0) {
      line = stamp;
      stamped = true;
    }
    out += line + "\n";
  }
  if (stamped) return out;
  const auto at = out.rfind("\ncalibration:") != std::string::npos
                      ? out.find("\ncalibration:") + 1
                      : (out.rfind("calibration:", 0) == 0 ? 0 : std::string::npos);
  if (at == std::string::npos)
    throw InputError(fmt::format("{}: no `calibration:` block to stamp", path));
  return out.insert(at, stamp + "\n");
}

}  // namespace

double platform_value(const std::string& data_dir, const std::string& platform,
                      const std::string& key) {
  const std::string path = platform_file(data_dir, platform);
  YAML::Node node = io::load_yaml_file(path);
  std::string rest = key;
  for (std::size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1))
    node = node.IsMap() ? node[rest.substr(0, dot)] : YAML::Node();
  if (!node.IsMap() || !node[rest].IsScalar()) {
    std::vector<std::string> known;  // the keys of the key's section, for a did-you-mean
    if (node.IsMap())
      for (const auto& kv : node) known.push_back(kv.first.Scalar());
    throw InputError(fmt::format("{}: no key {}{}", path, key, did_you_mean(rest, known)));
  }
  try {
    return node[rest].as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(fmt::format("{}: {} = '{}': not a number", path, key, node[rest].Scalar()));
  }
}

std::string data_hash(const std::string& reference) {
  const std::string bytes = read_text(reference);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP_Digest)");
  std::string hex;
  for (unsigned int i = 0; i < 8 && i < size; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

std::string stamp_prefix(const std::string& reference) {
  return fmt::format(
      "# Fitted by tools/calibrate --write from platforms/calibration/measurements.yaml (sha256 "
      "{}",
      data_hash(reference));
}

std::vector<std::string> calibration_differences(const std::string& data_dir,
                                                 const std::vector<CalibrationParameter>& params,
                                                 const std::vector<double>& best,
                                                 const std::string& reference) {
  std::vector<std::string> bad;
  for (std::size_t k = 0; k < params.size(); ++k)
    for (const auto& p : kCalibratedPlatforms) {
      const double have = platform_value(data_dir, p, params[k].key);
      if (std::fabs(have - best[k]) > 5e-3 * std::max(1e-9, std::fabs(best[k])))
        bad.push_back(fmt::format("platforms/{}.yaml: {} = {:.4g}, a fresh fit gives {:.4g}", p,
                                  params[k].key, have, best[k]));
    }
  std::set<double> sds;
  for (const auto& p : kCalibratedPlatforms)
    sds.insert(platform_value(data_dir, p, "calibration.prediction_log_sd"));
  if (sds.size() > 1)
    bad.push_back(fmt::format("prediction_log_sd differs between the platform files: [{}]",
                              fmt::join(sds, ", ")));
  const auto stamp = stamp_prefix(reference);
  for (const auto& p : kCalibratedPlatforms)
    if (read_text(platform_file(data_dir, p)).find(stamp) == std::string::npos)
      bad.push_back(fmt::format("platforms/{}.yaml: no stamp of this data (sha256 {})", p,
                                data_hash(reference)));
  return bad;
}

void write_calibration(const std::string& data_dir, const std::vector<CalibrationParameter>& params,
                       const std::vector<double>& best, double log_sd, const std::string& reference,
                       const std::string& today) {
  const std::string stamp = fmt::format("{}; {}).", stamp_prefix(reference), today);
  io::OutputFiles files;
  for (const auto& p : kCalibratedPlatforms) {
    const std::string path = platform_file(data_dir, p);
    std::string text = read_text(path);
    for (std::size_t k = 0; k <= params.size(); ++k) {
      const std::string key =
          k < params.size() ? params[k].key : std::string("calibration.prediction_log_sd");
      const double v = k < params.size() ? best[k] : log_sd;
      text = set_value(text, path, key.substr(key.rfind('.') + 1), fmt::format("{:.4g}", v));
    }
    files.stage(path, set_stamp(text, path, stamp));
  }
  files.commit_files();
}

}  // namespace csx::app
