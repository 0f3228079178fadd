// Units and types of the results columns; the JSON document.
#include "report/results_json.hpp"

#include <fmt/format.h>
#include <array>
#include <charconv>
#include <stdexcept>
#include <utility>

namespace csx::io {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool one_of(const std::string& s, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (s == n) return true;
  return false;
}

// Columns holding whole counts.
bool integer_column(const std::string& c) {
  return one_of(c, {"num_csx", "batch_size", "per_system_batch_size", "seq_len", "tokens_per_step",
                    "micro_batch_size", "num_microbatches", "steps"});
}

// Columns holding text (names, settings, reasons).
bool text_column(const std::string& c) {
  return one_of(
      c, {"model", "platform", "overrides", "mode", "requested_micro_batch_size", "reason", "bound",
          "activation_plan", "name", "group", "family", "release", "shard", "grid"});
}

}  // namespace

std::string column_unit(const std::string& c) {
  // Named columns first, then suffixes.
  static const std::array<std::pair<const char*, const char*>, 11> named{{
      {"num_csx", "systems"},
      {"batch_size", "samples"},
      {"per_system_batch_size", "samples"},
      {"micro_batch_size", "samples"},
      {"num_microbatches", "microbatches"},
      {"seq_len", "tokens"},
      {"tokens_per_step", "tokens"},
      {"steps", "steps"},
      {"mfu", "fraction"},
      {"recompute_passes", "forward passes per block"},
      {"requested_micro_batch_size", ""},
  }};
  for (const auto& [name, unit] : named)
    if (c == name) return unit;
  // A prediction interval's bounds have the unit of their value.
  for (const std::string bound : {"_low", "_high"})
    if (ends_with(c, bound)) return column_unit(c.substr(0, c.size() - bound.size()));
  if (ends_with(c, "samples_per_s")) return "samples/s";
  if (ends_with(c, "tokens_per_s")) return "tokens/s";
  if (ends_with(c, "_share")) return "fraction";
  if (ends_with(c, "_bytes")) return "bytes";
  if (ends_with(c, "_pct")) return "%";
  if (ends_with(c, "_s")) return "s";
  return "";
}

nlohmann::ordered_json typed_value(const std::string& column, const std::string& field) {
  if (field.empty()) return nullptr;
  if (column == "fits" || column == "chosen") {
    if (field == "true") return true;
    if (field == "false") return false;
    return field;
  }
  if (text_column(column)) return field;
  const char* end = field.data() + field.size();
  if (integer_column(column)) {
    std::int64_t v = 0;
    const auto r = std::from_chars(field.data(), end, v);
    if (r.ec == std::errc() && r.ptr == end) return v;
  }
  double d = 0;
  const auto r = std::from_chars(field.data(), end, d);
  if (r.ec == std::errc() && r.ptr == end) return d;
  return field;
}

std::string json_text(const nlohmann::ordered_json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string results_json(const nlohmann::ordered_json& inputs,
                         const std::vector<std::string>& columns,
                         const std::vector<std::vector<std::string>>& rows) {
  nlohmann::ordered_json doc;
  doc["inputs"] = inputs;
  auto& units = doc["units"] = nlohmann::ordered_json::object();
  for (const auto& c : columns) units[c] = column_unit(c);
  auto& records = doc["records"] = nlohmann::ordered_json::array();
  for (const auto& row : rows) {
    if (row.size() != columns.size())
      throw std::invalid_argument(
          fmt::format("a results row has {} fields, expected {}", row.size(), columns.size()));
    nlohmann::ordered_json rec = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < columns.size(); ++i)
      rec[columns[i]] = typed_value(columns[i], row[i]);
    records.push_back(std::move(rec));
  }
  return json_text(doc, 2) + "\n";
}

}  // namespace csx::io
