// The output flags (--csv, --json, --trace) of a parsed command line, checked.
#include "cli/output_flags.hpp"

#include <fmt/format.h>

#include "app/results_output.hpp"
#include "common/errors.hpp"
#include "common/named_path.hpp"
#include "report/atomic_file.hpp"

namespace csx::cli {

namespace {

// True when a and b name one file, also spelled differently and not yet created.
// A link to a file not yet written is that file (the output is written through the link).
bool same_path(const std::string& a, const std::string& b) {
  return a == b || written_path(a) == written_path(b);
}

}  // namespace

void check_output_flags(const po::variables_map& vm, const std::vector<std::string>& flags,
                        const std::vector<std::string>& inputs) {
  std::map<std::string, std::string> paths;
  std::vector<std::string> given;  // flags given, in order
  for (const auto& f : flags) {
    paths[f] = vm.count(f) ? vm[f].as<std::string>() : "";
    if (!vm.count(f)) continue;
    // Of the outputs, --csv and --json may be standard output (data_on_stdout), one of them.
    const bool to_stdout = paths[f] == io::kStandardOutput && (f == "csv" || f == "json");
    if (paths[f] == io::kStandardOutput && !to_stdout)
      io::check_output_path(paths[f], "--" + f, inputs);  // refuses "-"
    for (const auto& earlier : given)
      if (to_stdout && paths[earlier] == io::kStandardOutput)
        throw InputError(fmt::format(
            "--{} - and --{} -: only one output can go to standard output; name a file for the "
            "other",
            earlier, f));
      else if (same_path(paths[earlier], paths[f]))
        throw InputError(fmt::format("--{} and --{} name the same file {}", earlier, f, paths[f]));
    if (!to_stdout) app::check_output(paths[f], "--" + f, inputs);
    given.push_back(f);
  }
}

std::vector<std::unique_ptr<OutputLock>> lock_output_flags(const po::variables_map& vm,
                                                           const std::vector<std::string>& flags) {
  std::vector<std::unique_ptr<OutputLock>> locks;
  for (const auto& f : flags)
    if (vm.count(f) && vm[f].as<std::string>() != io::kStandardOutput)
      locks.push_back(std::make_unique<OutputLock>(vm[f].as<std::string>(), "--" + f));
  return locks;
}

bool data_on_stdout(const po::variables_map& vm) {
  for (const auto* f : {"csv", "json"})
    if (vm.count(f) && vm[f].as<std::string>() == io::kStandardOutput) return true;
  return false;
}

}  // namespace csx::cli
