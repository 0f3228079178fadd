// flock(2) on a lock file next to an output.
#include "common/output_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "common/errors.hpp"

namespace csx {

namespace {

constexpr std::string_view kMark = "csxsim pid ";  // a lock file's text: "csxsim pid N\n"

// The first bytes of the lock file (empty when unreadable).
std::string head(int fd) {
  char buf[64];
  const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

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
      std::string holder = head(fd);
      ::close(fd);
      holder = holder.rfind(kMark, 0) == 0 ? holder.substr(0, holder.find('\n')) : "";
      if (err == EWOULDBLOCK)
        throw InputError(fmt::format(
            "{} = {}: another process{} is writing this file (it holds {}): wait for it to end "
            "or choose another {}",
            flag, path, holder.empty() ? "" : " (" + holder + ")", lock_path_, flag));
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
      // Ours, or one a killed csxsim left; a file of that name with other text is the user's.
      const std::string text = head(fd);
      if (!text.empty() && text.rfind(kMark, 0) != 0) {
        ::close(fd);
        throw InputError(fmt::format(
            "{} = {}: {} exists and is not a csxsim lock file: move it away (csxsim takes that "
            "name while it writes {})",
            flag, path, lock_path_, path));
      }
      const std::string mark = fmt::format("{}{}\n", kMark, ::getpid());
      if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, mark.data(), mark.size(), 0) < 0) {
        // The lock holds without the text; the text only names the holder.
      }
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
