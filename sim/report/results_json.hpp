// JSON text as csxsim writes it (--json, describe, candidates, traces).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace csx::io {

// The text of a JSON document, indented by `indent` (-1: one line). A string that is not
// UTF-8 (a file name in another encoding) has each invalid byte replaced by U+FFFD instead of
// failing: JSON text is Unicode (RFC 8259, section 8.1).
[[nodiscard]] std::string json_text(const nlohmann::ordered_json& doc, int indent);

}  // namespace csx::io
