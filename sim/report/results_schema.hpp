// The one description of a results table: each column's name, unit, type and the getter that
// reads it from the row's structs. The CSV writer, the JSON writer (--json), the Python records
// and `csxsim columns` all read it, so a column's name, unit, type and value are written once
// (docs/cli.md#csv). Reals carry 9 significant digits everywhere ("%.9g"): a JSON or Python
// number is exactly the CSV's.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "common/on_each.hpp"

namespace csx::io {

// In the order of the Value alternatives that hold them (after null).
enum class ColumnType { kInteger, kReal, kText, kBool };
// Short names for the column tables.
inline constexpr auto kInt = ColumnType::kInteger;
inline constexpr auto kReal = ColumnType::kReal;
inline constexpr auto kText = ColumnType::kText;
inline constexpr auto kBool = ColumnType::kBool;
// "integer", "real", "text", "bool"
[[nodiscard]] const char* to_string(ColumnType type);

// One field: null (an empty CSV field, JSON null, Python None), or a value of its column's type.
using Value = std::variant<std::monostate, std::int64_t, double, std::string, bool>;
using Record = std::vector<Value>;  // one value per column, in the columns' order

struct ColumnInfo {
  std::string name;
  std::string unit;  // "" for text, flags and plain numbers
  ColumnType type = ColumnType::kText;
};

// `value` as its column holds it: a real rounded to 9 significant digits, an empty text null.
// Throws std::logic_error when the value is not of the column's type (a getter's bug).
[[nodiscard]] Value normalized(const ColumnInfo& column, Value value);

// A table kind's columns and getters from its row type (e.g. a candidate and its context).
template <typename Row>
class Schema {
 public:
  struct Column {
    ColumnInfo info;
    std::function<Value(const Row&)> get;
  };
  explicit Schema(std::vector<Column> columns) : columns_(std::move(columns)) {
    for (const auto& c : columns_) info_.push_back(c.info);
  }
  [[nodiscard]] const std::vector<ColumnInfo>& columns() const { return info_; }
  // One row's values, normalized. Throws std::logic_error when a getter returns a value not of
  // its column's type (normalized).
  [[nodiscard]] Record record(const Row& row) const {
    Record r;
    r.reserve(columns_.size());
    for (const auto& c : columns_) r.push_back(normalized(c.info, c.get(row)));
    return r;
  }

 private:
  std::vector<Column> columns_;
  std::vector<ColumnInfo> info_;
};

// Index of the column `name`; throws std::out_of_range for an unknown name.
[[nodiscard]] std::size_t column_index(const std::vector<ColumnInfo>& columns,
                                       const std::string& name);

// A value as a CSV field, unquoted: null "", integers in decimal, reals "%.9g" (locale
// independent), bools true/false.
[[nodiscard]] std::string field_text(const Value& v);
// Quotes a field that holds a comma, a quote or a newline (RFC 4180).
[[nodiscard]] std::string csv_field(const std::string& s);
// The header line and a record's line, newline-terminated.
[[nodiscard]] std::string csv_header(const std::vector<ColumnInfo>& columns);
[[nodiscard]] std::string csv_line(const Record& record);

// A CSV field (as a user's file holds it) as a value of its column's type: "" null, integers
// and reals whole fields (std::from_chars), bools true/false. Throws InputError
// "WHERE: column NAME: 'TEXT' is not ..." otherwise.
[[nodiscard]] Value parse_field(const ColumnInfo& column, const std::string& text,
                                const std::string& where);

// A value as JSON (null, number, string, bool).
[[nodiscard]] nlohmann::ordered_json value_json(const Value& v);

// {"name", "unit", "type"} per column, in order (`csxsim columns --json`).
[[nodiscard]] nlohmann::ordered_json columns_json(const std::vector<ColumnInfo>& columns);

// {"inputs": inputs, "units": {column: unit}, "records": [{column: value}, ...]}, indented by
// 2, newline-terminated (docs/cli.md#json-output). Throws std::invalid_argument when a record's
// length differs from the columns'.
[[nodiscard]] std::string results_json(const nlohmann::ordered_json& inputs,
                                       const std::vector<ColumnInfo>& columns,
                                       const std::vector<Record>& records);

}  // namespace csx::io
