// The compiled part of the Python module csxsim: runs one of the CLI's commands in-process,
// with the CLI's arguments, and maps its errors to Python exceptions carrying the CLI's
// message. The records are read from the files the command writes (csxsim/__init__.py).
#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>
#include <yaml-cpp/exceptions.h>
#include <boost/program_options/errors.hpp>
#include <csignal>
#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "common/errors.hpp"

namespace py = pybind11;

namespace {

// Sends the process's standard output (file descriptor 1) to a temporary file until text()
// or destruction; the commands print their tables with fmt::print.
class StdoutCapture {
 public:
  StdoutCapture() : file_(std::tmpfile()) {
    if (!file_) throw std::runtime_error("cannot create a temporary file for the output");
    std::fflush(stdout);
    saved_ = ::dup(STDOUT_FILENO);
    if (saved_ < 0 || ::dup2(::fileno(file_), STDOUT_FILENO) < 0) {
      std::fclose(file_);
      throw std::runtime_error("cannot redirect standard output");
    }
  }
  StdoutCapture(const StdoutCapture&) = delete;
  StdoutCapture& operator=(const StdoutCapture&) = delete;
  ~StdoutCapture() {
    restore();
    std::fclose(file_);
  }
  [[nodiscard]] std::string text() {
    restore();
    std::string out;
    std::rewind(file_);
    char buf[65536];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, file_)) > 0;) out.append(buf, n);
    return out;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stdout);
    ::dup2(saved_, STDOUT_FILENO);
    ::close(saved_);
    saved_ = -1;
  }
  std::FILE* file_;
  int saved_ = -1;
};

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

using Command = std::function<int(const csx::cli::Args&)>;

const std::map<std::string, Command>& commands() {
  static const std::map<std::string, Command> table{
      {"run", csx::cli::run_command},           {"sweep", csx::cli::sweep_command},
      {"validate", csx::cli::validate_command}, {"candidates", csx::cli::candidates_command},
      {"describe", csx::cli::describe_command}, {"plan", csx::cli::plan_command},
  };
  return table;
}

// `csxsim NAME ARGS...` in this process: (exit status, what it printed on stdout). Errors are
// thrown as the CLI's main() words them: csx::InputError for bad options and YAML.
std::pair<int, std::string> run_command(const std::string& name,
                                        const std::vector<std::string>& args) {
  const auto it = commands().find(name);
  if (it == commands().end()) throw std::invalid_argument("unknown csxsim command " + name);
  py::gil_scoped_release release;
  SignalGuard signals;
  StdoutCapture capture;
  int status = 0;
  try {
    status = it->second(args);
  } catch (const boost::program_options::error& e) {
    throw csx::InputError(fmt::format("{} (csxsim {} --help lists the options)", e.what(), name));
  } catch (const YAML::Exception& e) {
    throw csx::InputError(e.what());
  }
  return {status, capture.text()};
}

}  // namespace

PYBIND11_MODULE(_csxsim, m) {
  m.doc() = "csxsim's commands, run in-process (use the csxsim package, not this module)";
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
  m.def("command", &run_command, py::arg("name"), py::arg("args"),
        "Runs `csxsim NAME ARGS...` in-process; returns (exit status, standard output). Raises "
        "InputError (bad input, status 2) or InfeasibleError (nothing fits, status 1).");
}
