// `csxsim validate` as a typed request, for the CLI and the Python module
// (docs/python.md#python): read from the options given (app/option_table.hpp); its outcome and
// output files. The checks are app/validation.hpp's; the CLI prints their report
// (cli/validation_report.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
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

// The request of the options given to `validate` (not --cross-validate's). Throws InputError
// for a --platform-override without '=' or with a key given twice.
[[nodiscard]] ValidateRequest read_validate_request(const GivenOptions& given);

// A group of measured runs checked: each entry with its check, and their errors.
struct MeasurementGroup {
  std::string title;         // "current releases (fitted; in-sample error)", ...
  bool input_bound = false;  // input-bound runs: the simulated rate must be >= the measured
  std::vector<std::pair<Entry, MeasurementCheck>> checks;
  ErrorSummary errors;
  int inconsistent = 0;  // input-bound runs simulated below their measured rate
};

struct ValidateOutcome {
  // The measured runs: current releases (fitted), input-bound, older releases.
  std::vector<MeasurementGroup> groups;
  std::vector<std::pair<Entry, DecisionCheck>> decisions;
  std::vector<std::pair<Entry, MemoryCheck>> memory_facts;
  std::vector<std::pair<Entry, PreferenceCheck>> preferences;
  std::vector<io::Record> records;  // one per measured run (io::validation_schema)
  std::string csv;                  // the records' CSV, with the header
  nlohmann::ordered_json inputs;    // the --json inputs
  int failed = 0;                   // checks that failed (the CLI's exit status 1)
};

// Reads the reference and runs every check of the selection. Throws as read_reference and the
// checks do, and InputError for an unknown --platform-override key (before any check runs).
[[nodiscard]] ValidateOutcome execute_validate(const ValidateRequest& request);

// What --json records as the inputs of a validation.
[[nodiscard]] nlohmann::ordered_json validate_inputs(const ValidateRequest& request);

// Writes the request's --csv and --json (both or none). Throws InputError when a file cannot be
// written.
void write_validate_outputs(const ValidateRequest& request, const ValidateOutcome& v);

}  // namespace csx::app
