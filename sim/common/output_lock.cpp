// flock(2) on a lock file next to an output.
#include "common/output_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string_view>

#include "common/errors.hpp"
#include "common/named_path.hpp"

namespace csx {

namespace {

constexpr std::string_view kMark = "csxsim pid ";  // a lock file's text: "csxsim pid N\n"

// The first bytes of the lock file (empty when unreadable).
std::string head(int fd) {
  char buf[64];
  const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

// The lock files this process holds, for a signal that ends it (SIGINT, SIGTERM, SIGHUP) to
// remove them, as a normal exit does. Fixed buffers: the handler calls only async-signal-safe
// functions (getpid, unlink, sigaction, raise). A slot is written and freed with the three
// signals blocked, so the handler never reads half of one; its owner is the pid that took it
// (a forked child never removes its parent's).
constexpr std::size_t kMaxHeld = 16, kMaxPath = 4096;
struct Held {
  volatile std::sig_atomic_t owner = 0;  // pid; 0: free
  std::array<char, kMaxPath> path{};
};
std::array<Held, kMaxHeld> g_held{};

sigset_t ending_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  return set;
}

// Blocks SIGINT, SIGTERM and SIGHUP in this thread while it lives.
class EndingSignalsBlocked {
 public:
  EndingSignalsBlocked() {
    const sigset_t set = ending_signals();
    ::pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~EndingSignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  EndingSignalsBlocked(const EndingSignalsBlocked&) = delete;
  EndingSignalsBlocked& operator=(const EndingSignalsBlocked&) = delete;

 private:
  sigset_t old_{};
};

extern "C" void remove_held_and_reraise(int sig) {
  const auto self = static_cast<std::sig_atomic_t>(::getpid());
  for (auto& h : g_held)
    if (h.owner == self) ::unlink(h.path.data());
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);  // delivered once the handler returns (the signal is blocked inside it)
}

// Registers `path` (call with the ending signals blocked); its slot, or -1.
int hold(const std::string& path) {
  if (path.size() >= kMaxPath) return -1;
  for (std::size_t i = 0; i < kMaxHeld; ++i) {
    if (g_held[i].owner != 0) continue;
    std::memcpy(g_held[i].path.data(), path.c_str(), path.size() + 1);
    g_held[i].owner = static_cast<std::sig_atomic_t>(::getpid());
    return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

namespace {

// The lock sits beside the file written (written_path), so every name of one file takes one
// lock.
std::string lock_path_of(const std::string& path) {
  return written_path(path) + ".lock";
}

}  // namespace

OutputLock::OutputLock(const std::string& path, const std::string& flag)
    : lock_path_(lock_path_of(path)) {
  // From creating the file to registering it, an ending signal waits (else it would leave it).
  const EndingSignalsBlocked blocked;
  // A holder removes the file before it unlocks, so a lock taken on a file that no longer has
  // this name is stale: take it again on the file that has.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      throw InputError(fmt::format("{} {}: cannot create the lock file {}: {}", flag, path,
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
            "{} {}: another process{} is writing this file (it holds {}): wait for it to end "
            "or choose another {}",
            flag, path, holder.empty() ? "" : " (" + holder + ")", lock_path_, flag));
      if (err == ENOLCK || err == EOPNOTSUPP) {
        fmt::print(stderr,
                   "warning: {} {}: the file system has no locks ({}), so nothing "
                   "stops another process writing this file at the same time\n",
                   flag, path, std::strerror(err));
        return;
      }
      throw InputError(
          fmt::format("{} {}: cannot lock {}: {}", flag, path, lock_path_, std::strerror(err)));
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
            "{} {}: {} exists and is not a csxsim lock file: move it away (csxsim takes that "
            "name while it writes {})",
            flag, path, lock_path_, path));
      }
      const std::string mark = fmt::format("{}{}\n", kMark, ::getpid());
      if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, mark.data(), mark.size(), 0) < 0) {
        // The lock holds without the text; the text only names the holder.
      }
      fd_ = fd;
      slot_ = hold(lock_path_);
      return;
    }
    ::close(fd);
  }
  throw InputError(
      fmt::format("{} {}: cannot lock {}: it keeps being replaced", flag, path, lock_path_));
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  const EndingSignalsBlocked blocked;
  if (slot_ >= 0) g_held[static_cast<std::size_t>(slot_)].owner = 0;
  ::unlink(lock_path_.c_str());  // before unlocking: see the constructor
  ::close(fd_);
}

void OutputLock::remove_on_ending_signals() {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction now {};
    if (::sigaction(sig, nullptr, &now) != 0 || now.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = remove_held_and_reraise;
    sa.sa_mask = ending_signals();
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace csx
