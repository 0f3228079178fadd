// Parsing and printing of micro_batch_size settings.
#include "batching/mbs_setting.hpp"

#include <fmt/format.h>
#include <charconv>

#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "common/whole_number.hpp"

namespace csx::batching {

MbsSetting parse_mbs_setting(const std::string& text, const std::string& where) {
  if (text == "auto") return MbsAuto{};
  if (text == "none") return MbsNone{};
  if (text == "explore") return MbsExplore{};
  if (const auto colon = text.find(':'); colon != std::string::npos) {
    MbsExplore e;
    e.min = parse_whole(text.substr(0, colon), where + " (explore min)", 1);
    e.max = parse_whole(text.substr(colon + 1), where + " (explore max)", 1);
    if (*e.min > *e.max)
      throw InputError(fmt::format("{} = {}: explore min {} is larger than max {}", where, text,
                                   *e.min, *e.max));
    return e;
  }
  if (!text.empty() &&
      (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-' || text[0] == '+'))
    return MbsFixed{parse_whole(text, where, 1)};
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
