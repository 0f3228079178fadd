// Column values: normalizing, CSV fields, JSON values, reading a field back by its type.
#include "report/results_schema.hpp"

#include <fmt/format.h>
#include <array>
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

// A column type's values are Value's alternative 1 + the type's number (0 is null).
constexpr std::size_t alternative(ColumnType type) {
  return 1 + static_cast<std::size_t>(type);
}
template <ColumnType type, typename T>
constexpr bool holds_as = std::is_same_v<std::variant_alternative_t<alternative(type), Value>, T>;
static_assert(holds_as<ColumnType::kInteger, std::int64_t> && holds_as<ColumnType::kReal, double> &&
              holds_as<ColumnType::kText, std::string> && holds_as<ColumnType::kBool, bool>);

// The types' names, in ColumnType's order.
constexpr std::array<const char*, 4> kTypeNames{"integer", "real", "text", "bool"};

}  // namespace

const char* to_string(ColumnType type) {
  return kTypeNames.at(static_cast<std::size_t>(type));
}

Value normalized(const ColumnInfo& column, Value value) {
  if (std::holds_alternative<std::monostate>(value)) return value;
  if (value.index() != alternative(column.type))
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
      OnEach{[](std::monostate) { return std::string(); },
             [](std::int64_t x) { return std::to_string(x); },
             [](double x) { return real_text(x); }, [](const std::string& x) { return x; },
             [](bool x) { return std::string(x ? "true" : "false"); }},
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
  for (const auto& c : columns) {
    if (!line.empty()) line += ',';
    line += csv_field(c.name);
  }
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
  return std::visit(OnEach{[](std::monostate) { return nlohmann::ordered_json(); },
                           [](const auto& x) { return nlohmann::ordered_json(x); }},
                    v);
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
