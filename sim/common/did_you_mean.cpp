// Edit-distance suggestions for typos in keys and enumerated values.
#include "common/did_you_mean.hpp"

#include <fmt/format.h>
#include <algorithm>

namespace csx {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

namespace {

// The candidate within did_you_mean's distance of `word`, or nullptr.
const std::string* closest(std::string_view word, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  const std::string* best = nullptr;
  std::size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = &c;
    }
  }
  return best;
}

std::string suggestion(const std::string& s) {
  return fmt::format(" (did you mean '{}'?)", s);
}

// The names (without extension) of the files in `dir` ("" the working folder) ending in `ext`.
std::vector<std::string> names_in(const std::filesystem::path& dir, const std::string& ext) {
  std::error_code ec;
  std::vector<std::string> out;
  for (const auto& f :
       std::filesystem::directory_iterator(dir.empty() ? std::filesystem::path(".") : dir, ec))
    if (f.path().extension() == ext) out.push_back(f.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string* best = closest(word, candidates);
  return best ? suggestion(*best) : std::string{};
}

std::string did_you_mean_file(const std::string& written, const std::filesystem::path& folder) {
  // File names are compared without their folder and extension, which the two share.
  const std::filesystem::path given(written);
  const std::string ext = given.extension().string();
  const auto beside = names_in(folder, ext);
  const std::string* best = closest(given.stem().string(), beside);
  return best ? suggestion((given.parent_path() / (*best + ext)).string()) : std::string{};
}

std::string did_you_mean_model(const std::string& written, const std::filesystem::path& folder,
                               const std::filesystem::path& models) {
  const auto names = names_in(models, ".yaml");
  const std::filesystem::path given(written);
  if (!given.has_parent_path() && !given.has_extension()) return did_you_mean(written, names);
  const std::string hint = did_you_mean_file(written, folder);
  return hint.empty() ? did_you_mean(given.stem().string(), names) : hint;
}

}  // namespace csx
