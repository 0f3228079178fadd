// Parsing and printing of micro_batch_size settings.
#include "batching/mbs_setting.hpp"

#include <charconv>
#include <fmt/format.h>

#include "common/did_you_mean.hpp"
#include "common/errors.hpp"

namespace csx::batching {

std::int64_t parse_positive_int(const std::string& text, const std::string& where) {
  std::int64_t v = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!text.empty() && text[0] == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec == std::errc::result_out_of_range)
    throw InputError(fmt::format("{} = {} is too large: it does not fit a 64-bit integer", where,
                                 text));
  if (text.empty() || ec != std::errc{} || ptr != last)
    throw InputError(fmt::format("{} = '{}' is not a whole number", where, text));
  if (v < 1) throw InputError(fmt::format("{} = {} is invalid: it must be at least 1", where, v));
  return v;
}

MbsSetting parse_mbs_setting(const std::string& text, const std::string& where) {
  if (text == "auto") return MbsAuto{};
  if (text == "none") return MbsNone{};
  if (text == "explore") return MbsExplore{};
  if (const auto colon = text.find(':'); colon != std::string::npos) {
    MbsExplore e;
    e.min = parse_positive_int(text.substr(0, colon), where + " (explore min)");
    e.max = parse_positive_int(text.substr(colon + 1), where + " (explore max)");
    if (*e.min > *e.max)
      throw InputError(fmt::format("{} = {}: explore min {} is larger than max {}", where, text,
                                   *e.min, *e.max));
    return e;
  }
  if (!text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-' ||
                        text[0] == '+'))
    return MbsFixed{parse_positive_int(text, where)};
  throw InputError(fmt::format(
      "{} = '{}' is not a micro_batch_size setting: use auto, explore, none, an integer or "
      "MIN:MAX{}",
      where, text, did_you_mean(text, {"auto", "explore", "none"})));
}

std::string to_string(const MbsSetting& s) {
  struct {
    std::string operator()(const MbsAuto&) const { return "auto"; }
    std::string operator()(const MbsNone&) const { return "none"; }
    std::string operator()(const MbsFixed& f) const { return std::to_string(f.value); }
    std::string operator()(const MbsExplore& e) const {
      if (!e.min && !e.max) return "explore";
      return fmt::format("{}:{}", e.min.value_or(1), e.max ? std::to_string(*e.max) : "P");
    }
  } v;
  return std::visit(v, s);
}

}  // namespace csx::batching
