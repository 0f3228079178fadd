// Sweep value lists, shard specs, and splitting text at a separator.
#include "input/value_list.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <limits>

#include "common/errors.hpp"
#include "common/whole_number.hpp"

namespace csx::io {
namespace {

constexpr std::size_t kMaxValues = 100000;

// A part of a list (use 1,2,4 or 1:64:x2 or 256:2048:+256), named by `what` in messages
// ("element", "factor", "step").
std::int64_t whole(const std::string& text, const std::string& flag, const std::string& list,
                   std::int64_t min, const char* what = "element") {
  return parse_whole(text, fmt::format("{} {} ({})", flag, list, what), min);
}

}  // namespace

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const auto pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos - start));
    if (pos == std::string::npos) return parts;
    start = pos + 1;
  }
}

std::vector<std::int64_t> parse_value_list(const std::string& text, const std::string& flag) {
  std::vector<std::int64_t> out;
  if (text.empty())
    throw InputError(
        fmt::format("{} '': an empty list; give values such as 1,2,4 or 1:64:x2", flag));
  const auto too_many = [&] {
    if (out.size() > kMaxValues)
      throw InputError(fmt::format("{} {}: more than {} values", flag, text, kMaxValues));
  };
  if (text.find(':') == std::string::npos) {
    for (const auto& part : split(text, ',')) {
      out.push_back(whole(part, flag, text, 1));
      too_many();
    }
    return out;
  }
  const auto parts = split(text, ':');
  if (parts.size() != 3 || parts[2].size() < 2 || (parts[2][0] != 'x' && parts[2][0] != '+'))
    throw InputError(
        fmt::format("{} {}: a range is START:END:xFACTOR or START:END:+STEP", flag, text));
  const std::int64_t start = whole(parts[0], flag, text, 1), end = whole(parts[1], flag, text, 1);
  if (start > end)
    throw InputError(fmt::format("{} {}: start {} is larger than end {}", flag, text, start, end));
  const bool geometric = parts[2][0] == 'x';
  const std::int64_t by =
      whole(parts[2].substr(1), flag, text, geometric ? 2 : 1, geometric ? "factor" : "step");
  for (std::int64_t v = start; v <= end;) {
    out.push_back(v);
    too_many();
    if (geometric) {
      if (v > std::numeric_limits<std::int64_t>::max() / by) break;
      v *= by;
    } else {
      if (v > std::numeric_limits<std::int64_t>::max() - by) break;
      v += by;
    }
  }
  return out;
}

std::pair<std::int64_t, std::int64_t> parse_shard(const std::string& text) {
  const auto parts = split(text, '/');
  if (parts.size() != 2)
    throw InputError(
        fmt::format("--shard {}: expected I/N, e.g. 0/4 (shards are numbered 0 to "
                    "N-1)",
                    text));
  const std::int64_t i = whole(parts[0], "--shard", text, 0);
  const std::int64_t n = whole(parts[1], "--shard", text, 1);
  if (i >= n)
    throw InputError(
        fmt::format("--shard {}: shard index {} must be below the shard count {} "
                    "(shards are numbered 0 to {})",
                    text, i, n, n - 1));
  return {i, n};
}

void sort_unique(std::vector<std::int64_t>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

}  // namespace csx::io
