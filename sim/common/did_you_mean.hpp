// Suggests the closest known word for a misspelled key or value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace csx {

// Levenshtein edit distance between a and b (case-sensitive).
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

// Returns " (did you mean 'x'?)" for the closest candidate within a distance of
// max(2, |word|/3), or "" when nothing is close.
[[nodiscard]] std::string did_you_mean(std::string_view word,
                                       const std::vector<std::string>& candidates);

}  // namespace csx
