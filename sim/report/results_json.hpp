// The JSON twin of a results CSV (run, sweep, validate): the inputs that produced it, each
// column's unit, and the CSV's rows as typed records. Values come from the CSV's own field
// text, so a record holds exactly the number the CSV holds.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace csx::io {

// The unit of a column, from its name (the one table of units; docs/cli.md#csv):
// "s" (*_s), "bytes" (*_bytes), "samples/s", "tokens/s", "fraction" (mfu, *_share),
// "%" (*_pct), "samples" (batch sizes), "tokens", "systems", "microbatches", "steps",
// "forward passes per block" (recompute_passes); "" for text, flags and unknown columns.
[[nodiscard]] std::string column_unit(const std::string& column);

// One CSV field as a JSON value of its column's type: empty -> null; fits and chosen ->
// bool; counts -> integer; measures -> number; text columns -> string. A field of a numeric
// column that is not a number stays a string.
[[nodiscard]] nlohmann::ordered_json typed_value(const std::string& column,
                                                 const std::string& field);

// The text of a JSON document, indented by `indent` (-1: one line). A string that is not
// UTF-8 (a file name in another encoding) has each invalid byte replaced by U+FFFD instead of
// failing: JSON text is Unicode (RFC 8259, section 8.1).
[[nodiscard]] std::string json_text(const nlohmann::ordered_json& doc, int indent);

// {"inputs": inputs, "units": {column: unit}, "records": [{column: value}, ...]}, indented by
// 2, newline-terminated. Each row holds one (unquoted) field per column. Throws
// std::invalid_argument when a row's length differs from the columns'.
[[nodiscard]] std::string results_json(const nlohmann::ordered_json& inputs,
                                       const std::vector<std::string>& columns,
                                       const std::vector<std::vector<std::string>>& rows);

}  // namespace csx::io
