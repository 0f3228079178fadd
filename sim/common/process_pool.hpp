// The one process pool: work in forked children, their text back through pipes. Serves the
// engine (SimGrid allows one engine per process: docs/model.md#execution-model-weight-streaming)
// and the sweep's grid points.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace csx {

struct ChildOutcome {
  int status = 0;      // exit status: 0 done; 2 the work refused its input; 3 it failed;
                       // 128 + N when killed by signal N
  std::string output;  // what the work returned, or the error's message
};

struct PoolOptions {
  int at_once = 1;  // children running at once (at least 1)
  // Children take the default SIGINT/SIGTERM actions (the parent handles them itself); else
  // they keep the dispositions this process has.
  bool default_signals = false;
};

// Runs work(i) for every i < count, each in a forked child, `at_once` at a time. In the child,
// an InputError, RuleError or InfeasibleError becomes status 2 and another exception status 3,
// with its message as the output. done(i, outcome) runs in this process as each child ends.
// stop(), checked after each child ends and after a signal interrupts the wait, ends the pool
// early: running children are sent SIGTERM and reaped without done(). Children die with this
// process. Throws std::runtime_error when a pipe or a fork fails; that or an exception from
// done() leaves after the running children are sent SIGTERM and reaped (none is left behind).
void run_in_children(std::size_t count, const PoolOptions& options,
                     const std::function<std::string(std::size_t)>& work,
                     const std::function<void(std::size_t, ChildOutcome)>& done,
                     const std::function<bool()>& stop = {});

}  // namespace csx
