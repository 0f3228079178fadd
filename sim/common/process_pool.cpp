// Forked children, read through pipes with poll() so that none blocks on a full pipe.
#include "common/process_pool.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <map>
#include <stdexcept>
#include <vector>

#include "common/errors.hpp"

namespace csx {
namespace {

struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::string output;
};

void write_all(int fd, const std::string& data) {
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(4);
    written += static_cast<std::size_t>(n);
  }
}

// The child's side: run the work, send its text, exit with its status.
[[noreturn]] void child_main(int fd, pid_t parent, const PoolOptions& options,
                             const std::function<std::string()>& work) {
  if (options.default_signals) {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
  }
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed parent leaves no child running
  if (::getppid() != parent) _exit(5);
  int status = 0;
  std::string text;
  try {
    text = work();
  } catch (const InputError& e) {  // and RuleError
    text = e.what();
    status = 2;
  } catch (const InfeasibleError& e) {
    text = e.what();
    status = 2;
  } catch (const std::exception& e) {
    text = e.what();
    status = 3;
  } catch (...) {
    text = "unknown exception";
    status = 3;
  }
  write_all(fd, text);
  ::close(fd);
  std::fflush(nullptr);
  _exit(status);
}

Child spawn(const PoolOptions& options, const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe() failed");
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error("fork() failed");
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], parent, options, work);
  }
  ::close(fds[1]);
  return {pid, fds[0], {}};
}

// Reads what is there; true at the end of the child's output.
bool read_some(Child& c) {
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(c.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    c.output.append(buffer, static_cast<std::size_t>(n));
    return false;
  }
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 3;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

void run_in_children(std::size_t count, const PoolOptions& options,
                     const std::function<std::string(std::size_t)>& work,
                     const std::function<void(std::size_t, ChildOutcome)>& done,
                     const std::function<bool()>& stop) {
  const auto stopped = [&] { return stop && stop(); };
  std::map<std::size_t, Child> running;  // by index
  // Stopped early, or an exception (from done(), a fork, a poll): end what still runs.
  struct Reaper {
    std::map<std::size_t, Child>& running;
    ~Reaper() {
      for (const auto& [i, c] : running) ::kill(c.pid, SIGTERM);
      for (auto& [i, c] : running) {
        ::close(c.fd);
        (void)wait_for(c.pid);
      }
    }
  } reaper{running};
  std::size_t next = 0;
  while ((next < count || !running.empty()) && !stopped()) {
    while (next < count && static_cast<int>(running.size()) < std::max(1, options.at_once)) {
      const std::size_t i = next++;
      running.emplace(i, spawn(options, [&work, i] { return work(i); }));
    }
    std::vector<pollfd> fds;
    std::vector<std::size_t> which;
    for (const auto& [i, c] : running) {
      fds.push_back({c.fd, POLLIN, 0});
      which.push_back(i);
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("poll() failed");
    }
    for (std::size_t f = 0; f < fds.size(); ++f) {
      if (fds[f].revents == 0) continue;
      auto& c = running.at(which[f]);
      if (!read_some(c)) continue;
      ::close(c.fd);
      ChildOutcome outcome{wait_for(c.pid), std::move(c.output)};
      running.erase(which[f]);
      done(which[f], std::move(outcome));
    }
  }
}

}  // namespace csx
