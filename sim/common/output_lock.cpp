// flock(2) on a lock file next to an output.
#include "common/output_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

#include "common/errors.hpp"

namespace csx {

OutputLock::OutputLock(const std::string& path, const std::string& flag)
    : lock_path_(path + ".lock") {
  // A holder removes the file before it unlocks, so a lock taken on a file that no longer has
  // this name is stale: take it again on the file that has.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      throw InputError(fmt::format("{} = {}: cannot create the lock file {}: {}", flag, path,
                                   lock_path_, std::strerror(errno)));
    int rc = 0;
    do rc = ::flock(fd, LOCK_EX | LOCK_NB);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK)
        throw InputError(fmt::format(
            "{} = {}: another process is writing this file (it holds {}): wait for it to end "
            "or choose another {}",
            flag, path, lock_path_, flag));
      if (err == ENOLCK || err == EOPNOTSUPP) {
        fmt::print(stderr,
                   "warning: {} = {}: the file system has no locks ({}), so nothing "
                   "stops another process writing this file at the same time\n",
                   flag, path, std::strerror(err));
        return;
      }
      throw InputError(
          fmt::format("{} = {}: cannot lock {}: {}", flag, path, lock_path_, std::strerror(err)));
    }
    struct stat held {};
    struct stat named {};
    if (::fstat(fd, &held) == 0 && ::stat(lock_path_.c_str(), &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      fd_ = fd;
      return;
    }
    ::close(fd);
  }
  throw InputError(
      fmt::format("{} = {}: cannot lock {}: it keeps being replaced", flag, path, lock_path_));
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(lock_path_.c_str());  // before unlocking: see the constructor
  ::close(fd_);
}

}  // namespace csx
