// Typed errors. The library throws; only sim/cli maps them to exit codes.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace csx {

// Bad input: a malformed file, a wrong type, a value out of range. Exit status 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // Warnings the reading had collected when it failed (a duplicate key that explains the
  // error); sim/cli prints them before the error.
  std::vector<std::string> warnings;
};

// Runs `read`; an InputError it throws carries `warnings` (as they are then) before its own, so
// the warnings a reading had collected are printed with the error they may explain.
template <class Read>
decltype(auto) carrying_warnings(const std::vector<std::string>& warnings, Read&& read) {
  try {
    return read();
  } catch (InputError& e) {
    e.warnings.insert(e.warnings.begin(), warnings.begin(), warnings.end());
    throw;
  }
}

// A valid input that a Cerebras platform rule refuses (MBS > P, explore outside
// compile-only, microbatching with batch norm, ...). Exit status 2.
class RuleError : public InputError {
 public:
  using InputError::InputError;
};

// Standard output cannot be written (a full disk, /dev/full). Exit status 2, as bad input
// is: the command's result did not reach the user (docs/cli.md#exit-statuses-and-error-messages).
class StdoutError : public InputError {
 public:
  using InputError::InputError;
};

// The configuration is well formed but nothing can run: no candidate fits. Exit status 1.
class InfeasibleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace csx
