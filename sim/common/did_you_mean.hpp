// Suggests the closest known word for a misspelled key or value.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace csx {

// `s` with its ASCII letters in lower case (names compared case aside).
[[nodiscard]] std::string lowercase(std::string_view s);

// Levenshtein edit distance between a and b (case-sensitive).
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

// Returns " (did you mean 'x'?)" for the closest candidate within a distance of
// max(2, |word|/3), or "" when nothing is close.
[[nodiscard]] std::string did_you_mean(std::string_view word,
                                       const std::vector<std::string>& candidates);

// For a file `written` that does not exist: " (did you mean 'X'?)", X the regular file in
// `folder` (the written path's folder, as resolved; "" is the working folder), other than `skip`,
// whose name is closest to the written one, with the folder as written: within a quarter of the
// name's length in edits (at least 1), among the .yaml and .yml files and those of its extension
// (a name without extension is tried with .yaml). When `folder` is not a folder, the folder
// beside it of that name in another case, or whose name is that close, stands in for it
// (Scenarios/ or SCENARIOS/ for scenarios/), its name
// in the suggestion. "" when none is close, the
// name is empty, or the folder cannot be read or holds more than 10,000 entries. Throws nothing.
[[nodiscard]] std::string did_you_mean_file(const std::string& written,
                                            const std::filesystem::path& folder,
                                            const std::filesystem::path& skip = {});

// For a model `written` (a name in models/, or a path) that names no file: did_you_mean_file's
// suggestion (`skip`: the file that names the model), else the models/ name (a .yaml file of
// `models`) closest to its name; "" when nothing is close. A bare name is matched against the
// models/ names only. Throws nothing.
[[nodiscard]] std::string did_you_mean_model(const std::string& written,
                                             const std::filesystem::path& folder,
                                             const std::filesystem::path& models,
                                             const std::filesystem::path& skip = {});

}  // namespace csx
