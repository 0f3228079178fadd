// Edit-distance suggestions for typos in keys and enumerated values.
#include "common/did_you_mean.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <optional>

namespace csx {

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

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

// did_you_mean's reach: a third of the word's length in edits, at least 2.
std::size_t word_limit(std::string_view word) {
  return std::max<std::size_t>(2, word.size() / 3);
}

// A file or folder name's reach: a quarter of its stem's length, at least 1, so that a short
// name (cs2.yaml) is not matched with any short file beside it.
std::size_t name_limit(std::string_view stem) {
  return std::max<std::size_t>(1, stem.size() / 4);
}

// The candidate that is `word` in another case (AUTO for auto), else the one within `limit`
// edits of it, or nullptr.
const std::string* closest(std::string_view word, const std::vector<std::string>& candidates,
                           std::size_t limit) {
  const std::string lower = lowercase(word);
  for (const auto& c : candidates)
    if (c != word && c.size() == word.size() && lowercase(c) == lower) return &c;
  const std::string* best = nullptr;
  std::size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    // The distance is at least the difference of the lengths.
    if ((c.size() > word.size() ? c.size() - word.size() : word.size() - c.size()) > limit)
      continue;
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

// Folders with more entries than this get no suggestion (the listing would take seconds).
constexpr std::size_t kMaxListed = 10000;

// The names `pick` gives the entries of `dir` ("" the working folder; an entry it gives
// nullopt is left out), sorted; none when the folder cannot be read or is larger than
// kMaxListed.
template <typename Pick>
std::vector<std::string> listed(const std::filesystem::path& dir, const Pick& pick) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> out;
  fs::directory_iterator it(dir.empty() ? fs::path(".") : dir, ec);
  for (std::size_t seen = 0; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (++seen > kMaxListed) return {};
    if (auto name = pick(*it)) out.push_back(std::move(*name));
  }
  if (ec) return {};
  std::sort(out.begin(), out.end());
  return out;
}

// The names of the folders in `dir`, as `listed`.
std::vector<std::string> folders_in(const std::filesystem::path& dir) {
  return listed(dir, [](const std::filesystem::directory_entry& e) -> std::optional<std::string> {
    std::error_code ec;
    if (!e.is_directory(ec)) return std::nullopt;
    return e.path().filename().string();
  });
}

// The names of the regular files in `dir` ending in one of `exts` (without it when `stems`),
// except `skip`, as `listed`.
std::vector<std::string> names_in(const std::filesystem::path& dir,
                                  const std::vector<std::string>& exts, bool stems,
                                  const std::filesystem::path& skip = {}) {
  namespace fs = std::filesystem;
  return listed(dir, [&](const fs::directory_entry& e) -> std::optional<std::string> {
    const fs::path& f = e.path();
    std::error_code ec;
    if (std::find(exts.begin(), exts.end(), f.extension().string()) == exts.end() ||
        !e.is_regular_file(ec))
      return std::nullopt;
    if (!skip.empty() && fs::equivalent(f, skip, ec)) return std::nullopt;
    return (stems ? f.stem() : f.filename()).string();
  });
}

}  // namespace

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string* best = closest(word, candidates, word_limit(word));
  return best ? suggestion(*best) : std::string{};
}

std::string did_you_mean_file(const std::string& written, const std::filesystem::path& folder,
                              const std::filesystem::path& skip) {
  // Whole file names are compared (an extension mistyped, .yml for .yaml, is a typo too); a
  // name without extension is tried with .yaml. A folder that does not exist is matched with
  // the folders beside it first (Scenarios/ for scenarios/).
  namespace fs = std::filesystem;
  const fs::path given(written);
  if (given.stem().empty()) return {};
  std::string name = given.filename().string();
  if (!given.has_extension()) name += ".yaml";
  const std::string ext = given.extension().string();
  std::vector<std::string> exts{".yaml", ".yml"};
  if (!ext.empty()) exts.push_back(ext);
  fs::path dir = folder;
  fs::path shown = given.parent_path();
  std::error_code ec;
  if (!dir.empty() && !fs::is_directory(dir, ec)) {
    const std::string lost = dir.filename().string();
    const auto folders = folders_in(dir.parent_path());
    // The same name in another case (SCENARIOS/ for scenarios/) first, then one close to it.
    const auto same = std::find_if(folders.begin(), folders.end(), [&](const std::string& f) {
      return lowercase(f) == lowercase(lost);
    });
    const std::string* near = lost.empty() || lost == "." || lost == ".." ? nullptr
                              : same != folders.end()                     ? &*same
                                                      : closest(lost, folders, name_limit(lost));
    if (!near) return {};
    dir = dir.parent_path() / *near;
    shown = shown.parent_path() / *near;
  }
  const auto beside = names_in(dir, exts, false, skip);
  const std::string* best = closest(name, beside, name_limit(given.stem().string()));
  return best ? suggestion((shown / *best).string()) : std::string{};
}

std::string did_you_mean_model(const std::string& written, const std::filesystem::path& folder,
                               const std::filesystem::path& models,
                               const std::filesystem::path& skip) {
  const auto names = names_in(models, {".yaml"}, true);
  const std::filesystem::path given(written);
  if (!given.has_parent_path() && !given.has_extension()) return did_you_mean(written, names);
  const std::string hint = did_you_mean_file(written, folder, skip);
  return hint.empty() ? did_you_mean(given.stem().string(), names) : hint;
}

}  // namespace csx
