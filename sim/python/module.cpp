// The compiled part of the Python module csxsim (docs/python.md#python): run, sweep, plan and
// validate as the application layer's typed requests (app/run_request.hpp, plan_request.hpp,
// sweep_request.hpp, validate_request.hpp), read from the keyword arguments (checked against
// the option table, app/option_table.hpp, and read by the same code as the CLI's flags) and
// executed in this process; candidates and describe as the objects their --json prints
// (app/candidates.hpp, app/describe.hpp). The records come from the result structs through the
// tables' schemas (report/results_schema.hpp), the text is what the CLI's printing functions write
// into an in-memory stream. No file descriptor is redirected and no file is written but those asked
// for (a sweep's csv=, run's trace=, an interrupted sweep's finished points).
//
// One call at a time: a module-level mutex is held for each call (the GIL released while it
// runs), so calls from several threads run one after the other, each with its own text.
#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>
#include <yaml-cpp/exceptions.h>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "app/candidates.hpp"
#include "app/describe.hpp"
#include "app/job_options.hpp"
#include "app/option_table.hpp"
#include "app/plan_request.hpp"
#include "app/results_output.hpp"
#include "app/run_request.hpp"
#include "app/sweep_request.hpp"
#include "app/validate_request.hpp"
#include "cli/plan_report.hpp"
#include "cli/run_report.hpp"
#include "cli/sweep_report.hpp"
#include "cli/text_sink.hpp"
#include "cli/validation_report.hpp"
#include "common/errors.hpp"
#include "report/atomic_file.hpp"
#include "report/results_csv.hpp"
#include "report/results_schema.hpp"
#include "report/validation_table.hpp"

namespace py = pybind11;
using Json = nlohmann::ordered_json;

namespace {

// Held for each call: the commands share process-wide state (sweep's signal handlers and
// flag, forked simulation workers, the standard streams' notes).
std::mutex g_call;

// Puts back the interpreter's SIGINT and SIGTERM handlers (sweep installs its own).
class SignalGuard {
 public:
  SignalGuard() {
    sigaction(SIGINT, nullptr, &int_);
    sigaction(SIGTERM, nullptr, &term_);
  }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;
  ~SignalGuard() {
    sigaction(SIGINT, &int_, nullptr);
    sigaction(SIGTERM, &term_, nullptr);
  }

 private:
  struct sigaction int_ {};
  struct sigaction term_ {};
};

// A call's result before it becomes Python objects (built without the GIL).
struct Output {
  std::vector<csx::io::ColumnInfo> columns;  // the table's schema
  std::vector<csx::io::Record> rows;         // typed values, one per column
  std::string csv;                           // the text --csv writes
  Json inputs;                               // the --json inputs
  std::string text;                          // what the CLI prints on standard output
  int status = 0;                            // the CLI's exit status
  std::string infeasible;                    // InfeasibleError's message, when nothing fits
  std::string interrupted;                   // a sweep stopped by a signal: why, and where
  Json object;                               // candidates and describe
};

// Runs `work` with the GIL released and the call mutex held.
template <typename F>
Output locked(F&& work) {
  py::gil_scoped_release release;
  const std::lock_guard<std::mutex> lock(g_call);
  const SignalGuard signals;
  try {
    return work();
  } catch (const YAML::Exception& e) {
    throw csx::InputError(e.what());
  }
}

// A table's records and its CSV text into `out`.
void rows_of(const std::vector<csx::io::ColumnInfo>& columns, std::vector<csx::io::Record> rows,
             const std::string& csv_text, Output& out) {
  out.columns = columns;
  out.rows = std::move(rows);
  out.csv = csv_text;
}

py::object to_python(const csx::io::Value& v) {
  return std::visit(csx::OnEach{[](std::monostate) -> py::object { return py::none(); },
                                [](std::int64_t x) -> py::object { return py::int_(x); },
                                [](double x) -> py::object { return py::float_(x); },
                                [](const std::string& x) -> py::object { return py::str(x); },
                                [](bool x) -> py::object { return py::bool_(x); }},
                    v);
}

py::object to_python(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return py::none();
    case Json::value_t::boolean:
      return py::bool_(j.get<bool>());
    case Json::value_t::number_integer:
      return py::int_(j.get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return py::int_(j.get<std::uint64_t>());
    case Json::value_t::number_float:
      return py::float_(j.get<double>());
    case Json::value_t::string:
      return py::str(j.get_ref<const std::string&>());
    case Json::value_t::array: {
      py::list list;
      for (const auto& v : j) list.append(to_python(v));
      return list;
    }
    case Json::value_t::object: {
      py::dict dict;
      for (const auto& [k, v] : j.items()) dict[py::str(k)] = to_python(v);
      return dict;
    }
    default:
      throw std::logic_error("a JSON value of no Python type");
  }
}

// {"columns", "units", "records", "inputs", "csv", "text", "status", "infeasible",
// "interrupted"}: the records' values as --json writes them (io::value_json): the schema's.
py::dict to_python(const Output& out) {
  py::dict d;
  py::list columns, records;
  py::dict units;
  for (const auto& c : out.columns) {
    columns.append(c.name);
    units[py::str(c.name)] = c.unit;
  }
  for (const auto& row : out.rows) {
    py::dict record;
    for (std::size_t i = 0; i < out.columns.size() && i < row.size(); ++i)
      record[py::str(out.columns[i].name)] = to_python(row[i]);
    records.append(std::move(record));
  }
  for (auto& [key, value] : std::initializer_list<std::pair<const char*, py::object>>{
           {"columns", columns},
           {"units", units},
           {"records", records},
           {"inputs", to_python(out.inputs)},
           {"csv", py::str(out.csv)},
           {"text", py::str(out.text)},
           {"status", py::int_(out.status)},
           {"infeasible", py::str(out.infeasible)},
           {"interrupted", py::str(out.interrupted)}})
    d[key] = value;
  return d;
}

// The options of a call to `command` from the keyword arguments csxsim/__init__.py passes (each
// a str, a list of str or a bool; None left out), checked against the option table; `argument`
// is the command's argument (its flag and value), if it takes one.
csx::app::GivenOptions given(const char* command, const py::dict& kw,
                             std::optional<std::pair<const char*, std::string>> argument = {}) {
  std::vector<std::pair<std::string, std::vector<std::string>>> keywords;
  for (const auto& [key, value] : kw) {
    if (value.is_none()) continue;
    auto& values =
        keywords.emplace_back(key.cast<std::string>(), std::vector<std::string>{}).second;
    if (py::isinstance<py::bool_>(value)) {
      if (!value.cast<bool>()) keywords.pop_back();
    } else if (py::isinstance<py::str>(value)) {
      values.push_back(value.cast<std::string>());
    } else {
      values = value.cast<std::vector<std::string>>();
    }
  }
  auto options = csx::app::given_keywords(command, keywords);
  if (argument) options.set(argument->first, {argument->second});
  return options;
}

// What csxsim/__init__.py builds a function's signature and reads its keyword arguments from:
// for each option `command` takes in Python, in the table's order, its keyword, flag, value
// type, whether it is the function's (positional) argument and whether it is required.
py::list python_options(const std::string& command) {
  py::list out;
  for (const auto& o : csx::app::command_options(command)) {
    if (!o.in_python()) continue;
    py::dict d;
    d["keyword"] = std::string(o.spec->keyword);
    d["flag"] = "--" + std::string(o.spec->flag);
    d["kind"] = std::string(csx::app::python_kind(o.type));
    d["argument"] = o.argument;
    d["required"] = o.argument || o.python_required;
    out.append(std::move(d));
  }
  return out;
}

py::dict run(const std::string& scenario, const py::dict& kw) {
  const auto q = csx::app::read_run_request(given("run", kw, {{"scenario", scenario}}));
  if (!q.trace.empty()) csx::io::check_output_path(q.trace, "--trace", {scenario});
  return to_python(locked([&] {
    const auto r = csx::app::execute_run(q);
    Output out;
    csx::cli::TextSink sink;
    csx::cli::print_run(sink.file(), r);
    out.text = sink.text();
    if (!q.trace.empty()) csx::app::write_run_outputs(q, r);  // the trace file
    const auto records = csx::app::run_records(r.results);
    rows_of(csx::io::candidate_columns(), records, csx::app::run_csv_text(records), out);
    out.inputs = csx::app::run_inputs(q.scenario_file, r.job, q.overrides);
    out.infeasible = csx::app::run_infeasible(q, r);
    return out;
  }));
}

// An interrupted sweep without csv=: its finished points go to a new file in the temporary
// folder, named in the KeyboardInterrupt, so that sweep(csv=PATH, resume=True) can finish.
std::string keep_finished_points(const std::string& rows) {
  namespace fs = std::filesystem;
  std::string path = (fs::temp_directory_path() / "csxsim-sweep-XXXXXX.csv").string();
  const int fd = ::mkstemps(path.data(), 4);
  if (fd < 0) throw std::runtime_error("cannot create a file for the interrupted sweep's points");
  ::close(fd);
  csx::io::write_file_atomically(path, rows);
  return path;
}

py::dict sweep(const std::string& scenario, const py::dict& kw) {
  const auto options = given("sweep", kw, {{"scenario", scenario}});
  const auto q = csx::app::read_sweep_request(options);
  const auto csv = options.text("csv");
  if (csv) csx::io::check_output_path(*csv, "--csv", {scenario});
  return to_python(locked([&] {
    const auto s = csx::app::execute_sweep(q, stderr);
    Output out;
    rows_of(csx::io::candidate_columns(), s.table.records(), s.table.render(), out);
    out.inputs = s.inputs;
    if (s.signal != 0) {
      out.status = 128 + s.signal;
      out.interrupted =
          csv ? fmt::format("the finished points are kept in {}; call again with resume=True", *csv)
              : fmt::format(
                    "the finished points are kept in {0}; call again with csv='{0}', "
                    "resume=True to finish",
                    keep_finished_points(s.table.render()));
      return out;
    }
    if (csv) csx::io::write_file_atomically(*csv, out.csv);  // the finished sweep's CSV
    csx::cli::TextSink sink;
    csx::cli::print_sweep_summary(sink.file(), s, csv.value_or("Result.csv"));
    out.text = sink.text();
    out.infeasible = csx::app::sweep_infeasible(s, csv.value_or("the sweep"));
    return out;
  }));
}

py::dict plan(const std::string& model, const py::dict& kw) {
  const auto q = csx::app::read_plan_request(given("plan", kw, {{"model", model}}));
  return to_python(locked([&] {
    const auto p = csx::app::execute_plan(q);
    Output out;
    csx::cli::TextSink sink;
    csx::cli::print_plan(sink.file(), sink.file(), p);
    out.text = sink.text();
    rows_of(csx::io::candidate_columns(), p.result.rows.records(), p.result.rows.render(), out);
    out.inputs = p.inputs;
    out.infeasible = csx::app::plan_infeasible(p);
    return out;
  }));
}

py::dict validate(const py::dict& kw) {
  const auto q = csx::app::read_validate_request(given("validate", kw));
  return to_python(locked([&] {
    csx::cli::TextSink sink;
    const auto v = csx::app::execute_validate(q);
    csx::cli::print_validation(sink.file(), q, v);
    Output out;
    out.text = sink.text();
    rows_of(csx::io::validation_schema().columns(), v.records, v.csv, out);
    out.inputs = v.inputs;
    out.status = v.failed > 0 ? 1 : 0;
    return out;
  }));
}

py::object candidates(const py::dict& kw) {
  const auto options = given("candidates", kw);
  const auto out = locked([&] {
    Output o;
    o.object = csx::app::candidates_json(csx::app::candidates(
        options.text("batch-size").value_or(""), options.text("num-csx").value_or(""),
        options.text("micro-batch-size").value_or("auto")));
    return o;
  });
  return to_python(out.object);
}

py::object describe(const std::string& model, const py::dict& kw) {
  const auto options = given("describe", kw);
  const auto out = locked([&] {
    Output o;
    o.object = csx::app::describe_json(
        csx::app::describe(model, options.text("platform").value_or("cs2"),
                           csx::app::optional_count(options.text("seq-len"), "--seq-len")));
    return o;
  });
  return to_python(out.object);
}

}  // namespace

PYBIND11_MODULE(_csxsim, m) {
  m.doc() = "csxsim's requests, run in-process (use the csxsim package, not this module)";
  static py::exception<csx::InputError> input_error(m, "InputError", PyExc_ValueError);
  static py::exception<csx::InfeasibleError> infeasible_error(m, "InfeasibleError",
                                                              PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const csx::InputError& e) {  // and RuleError, as the CLI's exit status 2
      input_error(e.what());
    } catch (const csx::InfeasibleError& e) {
      infeasible_error(e.what());
    }
  });
  const char* returns =
      "Returns a dict: columns, units, records, inputs, csv, text, status, infeasible (the "
      "InfeasibleError message, empty when something fits), interrupted (a sweep stopped by a "
      "signal). Raises InputError for bad input.";
  m.def("run", &run, py::arg("scenario"), py::arg("options"), returns);
  m.def("sweep", &sweep, py::arg("scenario"), py::arg("options"), returns);
  m.def("plan", &plan, py::arg("model"), py::arg("options"), returns);
  m.def("validate", &validate, py::arg("options"), returns);
  m.def("candidates", &candidates, py::arg("options"),
        "The dict `csxsim candidates --json` prints.");
  m.def("describe", &describe, py::arg("model"), py::arg("options"),
        "The dict `csxsim describe --json` prints.");
  m.def(
      "check_keywords",
      [](const std::string& command, const std::vector<std::string>& keywords) {
        std::vector<std::pair<std::string, std::vector<std::string>>> given;
        for (const auto& k : keywords) given.emplace_back(k, std::vector<std::string>{});
        (void)csx::app::given_keywords(command, given);
      },
      py::arg("command"), py::arg("keywords"),
      "Raises InputError (with a did-you-mean) for the first keyword `command` does not take.");
  m.def("options", &python_options, py::arg("command"),
        "The keyword arguments of a command, from the option table: keyword, flag, kind "
        "(switch, text, list, platforms, names, key_values, variants), argument, required.");
}
