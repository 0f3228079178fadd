// `csxsim columns [results|validate] [--json]`: a results table's columns (name, unit, type)
// from its schema (report/results_schema.hpp), for tools/plot and docs/cli.md#csv.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/option_descriptions.hpp"
#include "cli/options.hpp"
#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "report/results_csv.hpp"
#include "report/results_json.hpp"
#include "report/validation_table.hpp"

namespace csx::cli {

int columns_command(const Args& args) {
  const auto vm = parse_command(args, "columns");
  if (!vm) return 0;
  const std::string table = vm->count("table") ? (*vm)["table"].as<std::string>() : "results";
  const std::vector<std::string> tables{"results", "validate"};
  if (table != "results" && table != "validate")
    throw InputError(fmt::format("columns: unknown table '{}' (tables: results, validate){}", table,
                                 did_you_mean(table, tables)));
  const auto& columns =
      table == "results" ? io::candidate_columns() : io::validation_schema().columns();
  if (vm->count("json")) {
    fmt::print("{}\n", io::json_text(io::columns_json(columns), 2));
    return 0;
  }
  fmt::print("{:<28} {:<26} {}\n", "column", "unit", "type");
  for (const auto& c : columns)
    fmt::print("{:<28} {:<26} {}\n", c.name, c.unit.empty() ? "-" : c.unit, io::to_string(c.type));
  return 0;
}

}  // namespace csx::cli
