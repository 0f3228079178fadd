// Runs each simulation in a forked child (SimGrid's engine is process-wide) and passes the
// result back through a pipe as JSON.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "engine/simulation.hpp"

namespace csx::engine {
namespace {

nlohmann::json to_json(const SimulationResult& r) {
  nlohmann::json j{{"step_time_s", r.step_time_s},
                   {"compute_time_s", r.compute_time_s},
                   {"weight_stream_time_s", r.weight_stream_time_s},
                   {"exposed_stream_time_s", r.exposed_stream_time_s},
                   {"grad_reduce_time_s", r.grad_reduce_time_s},
                   {"optimizer_time_s", r.optimizer_time_s},
                   {"end_time_s", r.end_time_s},
                   {"step_end_s", r.step_end_s},
                   {"bound", r.bound},
                   {"activities", r.activities},
                   {"microbatch_start_s", r.microbatch_start_s},
                   {"microbatch_wait_s", r.microbatch_wait_s},
                   {"microbatch_compute_s", r.microbatch_compute_s}};
  auto& t = j["trace"] = nlohmann::json::array();
  for (const auto& e : r.trace) t.push_back({e.track, e.name, e.category, e.start_s, e.end_s});
  return j;
}

SimulationResult from_json(const nlohmann::json& j) {
  SimulationResult r;
  r.step_time_s = j.at("step_time_s");
  r.compute_time_s = j.at("compute_time_s");
  r.weight_stream_time_s = j.at("weight_stream_time_s");
  r.exposed_stream_time_s = j.at("exposed_stream_time_s");
  r.grad_reduce_time_s = j.at("grad_reduce_time_s");
  r.optimizer_time_s = j.at("optimizer_time_s");
  r.end_time_s = j.at("end_time_s");
  r.step_end_s = j.at("step_end_s").get<std::vector<double>>();
  r.bound = j.at("bound");
  r.activities = j.at("activities");
  r.microbatch_start_s = j.at("microbatch_start_s").get<std::vector<double>>();
  r.microbatch_wait_s = j.at("microbatch_wait_s").get<std::vector<double>>();
  r.microbatch_compute_s = j.at("microbatch_compute_s").get<std::vector<double>>();
  for (const auto& e : j.at("trace"))
    r.trace.push_back({e[0], e[1], e[2], e[3].get<double>(), e[4].get<double>()});
  return r;
}

void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(4);
    done += static_cast<std::size_t>(n);
  }
}

SimulationResult run_forked(const SimulationInput& input) {
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
    // Die with csxsim: a killed run leaves no simulation running.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(5);
    ::close(fds[0]);
    int status = 0;
    try {
      // Doubles round-trip exactly: nlohmann::json prints the shortest exact form.
      write_all(fds[1], to_json(simulate_in_process(input)).dump());
    } catch (const std::exception& e) {
      write_all(fds[1], nlohmann::json{{"error", e.what()}}.dump());
      status = 3;
    } catch (...) {
      write_all(fds[1], nlohmann::json{{"error", "unknown exception"}}.dump());
      status = 3;
    }
    ::close(fds[1]);
    std::fflush(nullptr);
    _exit(status);
  }
  ::close(fds[1]);
  std::string data;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  pid_t waited = 0;
  while ((waited = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (waited != pid) throw std::runtime_error("simulation process could not be waited for");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string why = WIFSIGNALED(status) ? fmt::format("signal {}", WTERMSIG(status))
                                          : fmt::format("status {}", WEXITSTATUS(status));
    try {
      why += ": " + nlohmann::json::parse(data).at("error").get<std::string>();
    } catch (...) {
    }
    throw std::runtime_error("simulation process failed (" + why + ")");
  }
  return from_json(nlohmann::json::parse(data));
}

constexpr std::int64_t kKeptPerGroup = 5;
constexpr double kPeriodTolerance = 1e-10;

bool same(double a, double b) { return std::fabs(a - b) <= kPeriodTolerance * std::fabs(b); }

}  // namespace

SimulationResult simulate(const SimulationInput& input) {
  if (!input.representative || !input.collapse_microbatches || input.record_trace ||
      !input.microbatch_groups.empty())
    return run_forked(input);
  const auto& split = input.plan.split;
  const auto groups = input.plan.microbatch_groups(split.per_system_batch_size);
  bool reducible = false;
  SimulationInput reduced = input;
  for (const auto& [size, count] : groups) {
    reducible = reducible || count > kKeptPerGroup;
    reduced.microbatch_groups.emplace_back(size, std::min(count, kKeptPerGroup));
  }
  if (!reducible) return run_forked(input);
  SimulationResult r = run_forked(reduced);
  // In each collapsed group, the last kept microbatches must repeat with one period; the
  // remaining count - kept microbatches then each add that period, their compute and waits.
  double add_time = 0, add_compute = 0, add_wait = 0;
  std::size_t first = 0;
  for (const auto& [size, count] : groups) {
    const auto kept = static_cast<std::size_t>(std::min(count, kKeptPerGroup));
    if (count > kKeptPerGroup) {
      const auto& t = r.microbatch_start_s;
      const std::size_t a = first + kept - 4;  // durations a->a+1, a+1->a+2, a+2->a+3
      if (t.size() < first + kept) return run_forked(input);
      const double d1 = t[a + 1] - t[a], d2 = t[a + 2] - t[a + 1], d3 = t[a + 3] - t[a + 2];
      if (!same(d1, d3) || !same(d2, d3)) return run_forked(input);
      const double extra = static_cast<double>(count - kKeptPerGroup);
      add_time += extra * d3;
      add_compute += extra * r.microbatch_compute_s[a + 2];
      add_wait += extra * r.microbatch_wait_s[a + 2];
    }
    first += kept;
  }
  r.step_time_s += add_time;
  for (std::size_t s = 0; s < r.step_end_s.size(); ++s)
    r.step_end_s[s] += static_cast<double>(s + 1) * add_time;
  r.end_time_s = r.step_end_s.back();
  r.compute_time_s += add_compute;
  r.exposed_stream_time_s += add_wait;
  const auto busy = link_busy_times(input);
  r.weight_stream_time_s = busy.weights_s;
  r.grad_reduce_time_s = busy.gradients_s;
  r.bound = bound_of(r);
  r.microbatch_start_s.clear();
  r.microbatch_wait_s.clear();
  r.microbatch_compute_s.clear();
  return r;
}

}  // namespace csx::engine
