// The output flags of a parsed command line (--csv, --json, --trace): checked against the
// inputs and each other.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "common/output_lock.hpp"

namespace csx::cli {

// Checks the output files of `flags` (e.g. {"csv", "json"}) given: each passes
// io::check_output_path against `inputs` (an empty name is refused) and no two name one file;
// --csv and --json may be io::kStandardOutput ("-"), not both. Throws InputError naming the
// flags.
void check_output_flags(const po::variables_map& vm, const std::vector<std::string>& flags,
                        const std::vector<std::string>& inputs);

// An OutputLock (common/output_lock.hpp) on each output file of `flags` given (not "-"), held
// while the command runs, so that a sweep writing one of them refuses it and is not clobbered.
// Throws InputError as OutputLock.
[[nodiscard]] std::vector<std::unique_ptr<OutputLock>> lock_output_flags(
    const po::variables_map& vm, const std::vector<std::string>& flags);

// True when --csv or --json is "-": the data goes to standard output, so the command prints
// no table there (as with --quiet); notices stay on standard error.
[[nodiscard]] bool data_on_stdout(const po::variables_map& vm);

}  // namespace csx::cli
