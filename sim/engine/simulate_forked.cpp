// Runs each simulation in a forked child (SimGrid's engine is process-wide) and passes the
// result back through a pipe as JSON.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
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

std::vector<SimulationResult> run_forked(const std::vector<SimulationInput>& inputs) {
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
      nlohmann::json all = nlohmann::json::array();
      for (const auto& r : simulate_in_process(inputs)) all.push_back(to_json(r));
      write_all(fds[1], all.dump());
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
  std::vector<SimulationResult> results;
  for (const auto& j : nlohmann::json::parse(data)) results.push_back(from_json(j));
  if (results.size() != inputs.size())
    throw std::runtime_error("simulation process returned too few results");
  return results;
}

// One child per cluster shape (platform, num_csx, representative), inputs kept in order.
std::vector<SimulationResult> run_grouped(const std::vector<SimulationInput>& inputs) {
  std::vector<SimulationResult> out(inputs.size());
  std::vector<bool> done(inputs.size(), false);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (done[i]) continue;
    std::vector<std::size_t> members;
    std::vector<SimulationInput> group;
    for (std::size_t j = i; j < inputs.size(); ++j) {
      const auto& a = inputs[i];
      const auto& b = inputs[j];
      if (done[j] || a.representative != b.representative ||
          a.plan.split.num_csx != b.plan.split.num_csx || a.platform.source != b.platform.source ||
          a.platform.name != b.platform.name)
        continue;
      members.push_back(j);
      group.push_back(b);
      done[j] = true;
    }
    auto results = run_forked(group);
    for (std::size_t m = 0; m < members.size(); ++m) out[members[m]] = std::move(results[m]);
  }
  return out;
}

constexpr std::int64_t kKeptPerGroup = 5;
constexpr double kPeriodTolerance = 1e-10;

bool same(double a, double b) { return std::fabs(a - b) <= kPeriodTolerance * std::fabs(b); }

}  // namespace

namespace {

// The reduced input of a collapsible plan (at most kKeptPerGroup microbatches of each size), or
// nothing when the plan is to run as it is.
std::optional<SimulationInput> reduced_input(const SimulationInput& input) {
  if (!input.representative || !input.collapse_microbatches || input.record_trace ||
      !input.microbatch_groups.empty())
    return std::nullopt;
  const auto groups = input.plan.microbatch_groups(input.plan.split.per_system_batch_size);
  bool reducible = false;
  SimulationInput reduced = input;
  for (const auto& [size, count] : groups) {
    reducible = reducible || count > kKeptPerGroup;
    reduced.microbatch_groups.emplace_back(size, std::min(count, kKeptPerGroup));
  }
  if (!reducible) return std::nullopt;
  return reduced;
}

// Extends a reduced run to the whole plan. In each collapsed group the last kept microbatches
// must repeat with one period; the remaining count - kept microbatches then each add that
// period, their compute and their waits. Nothing when the period has not settled.
std::optional<SimulationResult> extend(const SimulationInput& input, SimulationResult r) {
  double add_time = 0, add_compute = 0, add_wait = 0;
  std::size_t first = 0;
  const auto& t = r.microbatch_start_s;
  for (const auto& [size, count] : input.plan.microbatch_groups(input.plan.split.per_system_batch_size)) {
    const auto kept = static_cast<std::size_t>(std::min(count, kKeptPerGroup));
    if (count > kKeptPerGroup) {
      if (t.size() < first + kept) return std::nullopt;
      const std::size_t a = first + kept - 4;  // durations a->a+1, a+1->a+2, a+2->a+3
      const double d1 = t[a + 1] - t[a], d2 = t[a + 2] - t[a + 1], d3 = t[a + 3] - t[a + 2];
      if (!same(d1, d3) || !same(d2, d3)) return std::nullopt;
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

}  // namespace

std::vector<SimulationResult> simulate_all(const std::vector<SimulationInput>& inputs) {
  std::vector<SimulationInput> first_pass;
  std::vector<bool> reduced(inputs.size(), false);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto r = reduced_input(inputs[i]);
    reduced[i] = r.has_value();
    first_pass.push_back(r ? std::move(*r) : inputs[i]);
  }
  auto results = run_grouped(first_pass);
  std::vector<std::size_t> again;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!reduced[i]) continue;
    if (auto full = extend(inputs[i], std::move(results[i]))) results[i] = std::move(*full);
    else again.push_back(i);
  }
  if (!again.empty()) {
    // The period did not settle: simulate those plans in full.
    std::vector<SimulationInput> full;
    for (const auto i : again) {
      full.push_back(inputs[i]);
      full.back().collapse_microbatches = false;
    }
    auto rerun = run_grouped(full);
    for (std::size_t n = 0; n < again.size(); ++n) results[again[n]] = std::move(rerun[n]);
  }
  return results;
}

SimulationResult simulate(const SimulationInput& input) { return simulate_all({input}).front(); }

}  // namespace csx::engine
