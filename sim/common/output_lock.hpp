// An exclusive lock on an output file while one process writes it, so that two commands
// given the same output (two shards started with one --csv) cannot clobber each other.
#pragma once

#include <string>

namespace csx {

// Holds flock(2) on PATH.lock, created next to PATH and holding "csxsim pid N", from
// construction to destruction; the lock file is removed on release (one left by a killed
// process holds no lock and is taken over). `flag` names the option that gave PATH ("--csv").
// Throws InputError naming PATH when another process holds the lock (with its pid), when
// PATH.lock is a file of other text (the user's: never overwritten) or cannot be created.
// Once remove_on_ending_signals() has run (the CLI does, a library host does not), a SIGINT,
// SIGTERM or SIGHUP that ends the process removes the lock files it holds.
// Where the file system has no locks (flock fails with ENOLCK or EOPNOTSUPP), warns on stderr
// and holds nothing.
class OutputLock {
 public:
  OutputLock(const std::string& path, const std::string& flag);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  // Installs a handler for SIGINT, SIGTERM and SIGHUP where the signal has its default action:
  // it removes the lock files this process holds, then ends the process by the signal as the
  // default would. A sweep's own SIGINT and SIGTERM handlers, installed later, replace it.
  static void remove_on_ending_signals();

 private:
  std::string lock_path_;
  int fd_ = -1;
  int slot_ = -1;  // its entry in the list a terminating signal removes
};

}  // namespace csx
