// Column values: normalizing, CSV fields, JSON values, reading a field back by its type.
#include "report/results_schema.hpp"

#include <fmt/format.h>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "common/errors.hpp"
#include "report/results_json.hpp"

namespace csx::io {
namespace {

std::string real_text(double v) {
  return fmt::format("{:.9g}", v);
}

// `text` read whole as a T; false when it is not one.
template <typename T>
bool read_whole(const std::string& text, T& v) {
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  return r.ec == std::errc() && r.ptr == end;
}

bool holds_type(ColumnType type, const Value& v) {
  switch (type) {
    case ColumnType::kInteger:
      return std::holds_alternative<std::int64_t>(v);
    case ColumnType::kReal:
      return std::holds_alternative<double>(v);
    case ColumnType::kText:
      return std::holds_alternative<std::string>(v);
    case ColumnType::kBool:
      return std::holds_alternative<bool>(v);
  }
  return false;
}

}  // namespace

const char* to_string(ColumnType type) {
  switch (type) {
    case ColumnType::kInteger:
      return "integer";
    case ColumnType::kReal:
      return "real";
    case ColumnType::kText:
      return "text";
    case ColumnType::kBool:
      return "bool";
  }
  return "";
}

Value normalized(const ColumnInfo& column, Value value) {
  if (std::holds_alternative<std::monostate>(value)) return value;
  if (!holds_type(column.type, value))
    throw std::logic_error(
        fmt::format("column {}: a value that is not {}", column.name, to_string(column.type)));
  if (const auto* s = std::get_if<std::string>(&value); s && s->empty()) return std::monostate{};
  if (const auto* d = std::get_if<double>(&value); d && std::isfinite(*d)) {
    double rounded = 0;
    if (read_whole(real_text(*d), rounded)) return rounded;
  }
  return value;
}

std::size_t column_index(const std::vector<ColumnInfo>& columns, const std::string& name) {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == name) return i;
  throw std::out_of_range("no results column " + name);
}

std::string field_text(const Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return "";
        if constexpr (std::is_same_v<T, std::int64_t>) return std::to_string(x);
        if constexpr (std::is_same_v<T, double>) return real_text(x);
        if constexpr (std::is_same_v<T, std::string>) return x;
        if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
      },
      v);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string csv_header(const std::vector<ColumnInfo>& columns) {
  std::string line;
  for (const auto& c : columns) line += (line.empty() ? "" : ",") + csv_field(c.name);
  return line + "\n";
}

std::string csv_line(const Record& record) {
  std::string line;
  for (std::size_t i = 0; i < record.size(); ++i) {
    if (i > 0) line += ',';
    line += csv_field(field_text(record[i]));
  }
  return line + "\n";
}

Value parse_field(const ColumnInfo& column, const std::string& text, const std::string& where) {
  if (text.empty()) return std::monostate{};
  const auto refuse = [&](const char* what) {
    return InputError(fmt::format("{}: column {}: '{}' is not {}", where, column.name, text, what));
  };
  switch (column.type) {
    case ColumnType::kText:
      return text;
    case ColumnType::kBool:
      if (text == "true") return true;
      if (text == "false") return false;
      throw refuse("true or false");
    case ColumnType::kInteger: {
      std::int64_t v = 0;
      if (!read_whole(text, v)) throw refuse("a whole number");
      return v;
    }
    case ColumnType::kReal: {
      double v = 0;
      if (!read_whole(text, v)) throw refuse("a number");
      return normalized(column, v);
    }
  }
  return std::monostate{};
}

nlohmann::ordered_json value_json(const Value& v) {
  return std::visit(
      [](const auto& x) -> nlohmann::ordered_json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return nullptr;
        else
          return x;
      },
      v);
}

Value value_from_json(const ColumnInfo& column, const nlohmann::json& j) {
  if (j.is_null()) return std::monostate{};
  const auto wrong = [&] {
    return std::invalid_argument(
        fmt::format("column {}: a JSON value that is not {}", column.name, to_string(column.type)));
  };
  switch (column.type) {
    case ColumnType::kText:
      if (!j.is_string()) throw wrong();
      return j.get<std::string>();
    case ColumnType::kBool:
      if (!j.is_boolean()) throw wrong();
      return j.get<bool>();
    case ColumnType::kInteger:
      if (!j.is_number_integer()) throw wrong();
      return j.get<std::int64_t>();
    case ColumnType::kReal:
      if (!j.is_number()) throw wrong();
      return j.get<double>();
  }
  return std::monostate{};
}

nlohmann::ordered_json columns_json(const std::vector<ColumnInfo>& columns) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& c : columns)
    out.push_back({{"name", c.name}, {"unit", c.unit}, {"type", to_string(c.type)}});
  return out;
}

std::string results_json(const nlohmann::ordered_json& inputs,
                         const std::vector<ColumnInfo>& columns,
                         const std::vector<Record>& records) {
  nlohmann::ordered_json doc;
  doc["inputs"] = inputs;
  auto& units = doc["units"] = nlohmann::ordered_json::object();
  for (const auto& c : columns) units[c.name] = c.unit;
  auto& out = doc["records"] = nlohmann::ordered_json::array();
  for (const auto& r : records) {
    if (r.size() != columns.size())
      throw std::invalid_argument(
          fmt::format("a results record has {} values, expected {}", r.size(), columns.size()));
    nlohmann::ordered_json rec = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < columns.size(); ++i) rec[columns[i].name] = value_json(r[i]);
    out.push_back(std::move(rec));
  }
  return json_text(doc, 2) + "\n";
}

}  // namespace csx::io
