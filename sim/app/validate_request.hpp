// `csxsim validate` as a typed request, for the CLI and the Python module
// (docs/python.md#python): read from the options given (app/option_table.hpp); its outcome and
// output files. The checks are app/validation.hpp's; their report is printed by the CLI's
// cli/validation_report.hpp.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/job.hpp"
#include "app/option_table.hpp"
#include "app/validation.hpp"
#include "report/results_schema.hpp"

namespace csx::app {

struct ValidateRequest {
  std::string reference;  // the fit data (default_reference() unless --reference)
  Overrides base;         // --platform-override's pairs, in order
  Selection selection;    // --only, --only-platform, --measurements-only
  std::string csv, json;  // output files; "" for none
};

// platforms/calibration/measurements.yaml of the data folder.
[[nodiscard]] std::string default_reference();

// The request of the options given to `validate` (not --cross-validate's). Throws InputError
// for a --platform-override without '=' or with a key given twice.
[[nodiscard]] ValidateRequest read_validate_request(const GivenOptions& given);

struct ValidateOutcome {
  std::vector<io::Record> records;  // one per measured run (io::validation_schema)
  std::string csv;                  // the records' CSV, with the header
  nlohmann::ordered_json inputs;    // the --json inputs
  int failed = 0;                   // checks that failed (the CLI's exit status 1)
};

// What --json records as the inputs of a validation.
[[nodiscard]] nlohmann::ordered_json validate_inputs(const ValidateRequest& request);

// Writes the request's --csv and --json (both or none).
void write_validate_outputs(const ValidateRequest& request, const ValidateOutcome& v);

}  // namespace csx::app
