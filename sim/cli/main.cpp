// csxsim entry point: picks the subcommand and maps errors to exit statuses
// (0 ok, 1 nothing fits, 2 bad input or a refused rule, 3 internal error).
#include <fmt/format.h>
#include <yaml-cpp/exceptions.h>
#include <boost/program_options/errors.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "common/output_lock.hpp"
#include "report/atomic_file.hpp"

namespace {

struct Command {
  std::function<int(const csx::cli::Args&)> run;
  const char* summary;
};

const std::map<std::string, Command>& commands() {
  static const std::map<std::string, Command> table{
      {"calibrate",
       {csx::cli::calibrate_command, "fit the calibration to the measured runs; cross-validate"}},
      {"candidates",
       {csx::cli::candidates_command, "per-system batches, supported MBS set, MBS resolution"}},
      {"run", {csx::cli::run_command, "simulate a scenario: candidates, step time, memory fit"}},
      {"sweep", {csx::cli::sweep_command, "run's search over a grid of num_csx and batch sizes"}},
      {"merge", {csx::cli::merge_command, "join sweep shards (or run CSVs) into one CSV"}},
      {"plan",
       {csx::cli::plan_command,
        "smallest cluster for a token budget and deadline, or time to train on given clusters"}},
      {"options",
       {csx::cli::options_command,
        "every command's options: flag, Python keyword, type, default, unit (Markdown)"}},
      {"platform",
       {csx::cli::platform_command, "every platform key with its unit, meaning and values"}},
      {"validate", {csx::cli::validate_command, "simulate measured runs and report the error"}},
      {"describe",
       {csx::cli::describe_command, "a model's parameters, FLOPs, bytes and memory fit"}},
      {"columns", {csx::cli::columns_command, "the CSV and JSON columns: name, unit, type"}},
  };
  return table;
}

void print_usage(std::FILE* out) {
  fmt::print(out, "usage: csxsim COMMAND [options]   (csxsim COMMAND --help for its options)\n\n");
  fmt::print(out, "Simulates microbatched training on Cerebras CS-2/CS-3 clusters.\n\ncommands:\n");
  for (const auto& [name, c] : commands()) fmt::print(out, "  {:<12} {}\n", name, c.summary);
}

// One printable line: control characters escaped, very long values cut.
std::string printable(const std::string& text) {
  constexpr std::size_t kMax = 4000;
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
    if (out.size() > kMax) return out + "...";
  }
  return out;
}

int fail(int status, const std::string& message) {
  fmt::print(stderr, "csxsim: error: {}\n", printable(message));
  return status;
}

// A full disk or a closed pipe on stdout must not pass for success: exit 2, for every command
// and for --help and --version (docs/cli.md#exit-statuses-and-error-messages).
int finish(int status) {
  try {
    csx::io::flush_stdout();
  } catch (const csx::StdoutError& e) {
    return fail(2, e.what());
  }
  return status;
}

// Whatever a command threw, a failed standard output is what went wrong (fmt::print throws a
// system error when a write to it fails).
bool stdout_failed() {
  return std::ferror(stdout) != 0;
}

// The exit status of the exception being handled, its message printed.
int fail_current(const std::string& command) {
  try {
    throw;
  } catch (const csx::InfeasibleError& e) {
    return fail(1, e.what());
  } catch (const csx::InputError& e) {
    for (const auto& w : e.warnings) fmt::print(stderr, "warning: {}\n", printable(w));
    return fail(2, e.what());
  } catch (const boost::program_options::error& e) {
    return fail(2, fmt::format("{} (csxsim {} --help lists the options)", e.what(), command));
  } catch (const YAML::Exception& e) {
    return fail(2, e.what());
  } catch (const std::exception& e) {
    return fail(3, fmt::format("internal error: {}", e.what()));
  }
}

// Ends the process once its output is flushed and its files are closed, skipping the static
// destructors of the shared libraries (SimGrid pulls in ns-3): about 10 ms per run, measured
// with perf. Sanitizer builds exit normally so that their end-of-run checks still happen.
[[noreturn]] void quick_exit_with(int status) {
  std::fflush(nullptr);
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CSXSIM_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(CSXSIM_SANITIZED)
  std::exit(status);
#else
  std::_Exit(status);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  csx::OutputLock::remove_on_ending_signals();  // a stopped command leaves no OUT.lock
  std::string name = argv[1];
  std::vector<char*> help_args;  // `csxsim help COMMAND`: COMMAND --help
  if (name == "help" && argc > 2) {
    name = argv[2];
    help_args = {argv[0], argv[2], const_cast<char*>("--help")};
    argv = help_args.data();
    argc = 3;
  }
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(stdout);
    quick_exit_with(finish(0));
  }
  if (name == "--version") {
    if (argc > 2 && help_args.empty())  // `help --version` prints the version too
      return fail(2, fmt::format("--version takes nothing after it, got '{}'", argv[2]));
    fmt::print("csxsim {}\n", CSXSIM_VERSION);
    quick_exit_with(finish(0));
  }
  const auto it = commands().find(name);
  if (it == commands().end()) {
    std::vector<std::string> names;
    for (const auto& [n, c] : commands()) names.push_back(n);
    names.push_back("--help");
    return fail(2, fmt::format("unknown command '{}'{}; run csxsim --help", name,
                               csx::did_you_mean(name, names)));
  }
  int status = 0;
  try {
    status = finish(it->second.run(csx::cli::Args(argv + 2, argv + argc)));
  } catch (const std::exception&) {
    status = stdout_failed() ? finish(2) : fail_current(name);
  }
  quick_exit_with(status);
}
