// The micro_batch_size setting as a user writes it: auto, explore (optionally bounded),
// none, or an integer. Source: Cerebras "Automatic microbatching" guide, key parameters table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace csx::batching {

struct MbsAuto {};
struct MbsNone {};
struct MbsFixed {
  std::int64_t value = 0;  // samples
};
struct MbsExplore {
  std::optional<std::int64_t> min;  // smallest MBS to try (samples)
  std::optional<std::int64_t> max;  // largest MBS to try (samples)
};

using MbsSetting = std::variant<MbsAuto, MbsNone, MbsFixed, MbsExplore>;

// Parses "auto", "explore", "none", an integer, or "MIN:MAX" (bounded explore).
// `where` names the source (a flag or file:key) for the error message.
// Throws InputError for anything else, for values < 1 and for values that overflow int64.
[[nodiscard]] MbsSetting parse_mbs_setting(const std::string& text, const std::string& where);

// The setting as a user would write it ("auto", "88", "explore", "8:64", "none").
[[nodiscard]] std::string to_string(const MbsSetting& s);

}  // namespace csx::batching
