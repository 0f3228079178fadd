// Runs simulations in forked processes (SimGrid's engine is process-wide) and passes results
// back through pipes as JSON. Per cluster shape, one process builds the engine and the platform
// and forks the children that share the plans.
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "engine/engine_session.hpp"
#include "engine/exact_reductions.hpp"
#include "engine/simulation.hpp"
#include "plan/step_bound.hpp"

namespace csx::engine {
namespace {

// Plans of one cluster shape are dealt to this many processes (fewer when there are fewer). Each
// process pays its page faults again; on 2 CPUs, 2 shares were 10 % faster than 4 (XL explore).
constexpr std::size_t kShares = 2;

nlohmann::json to_json(const SimulationResult& r) {
  nlohmann::json j{{"step_time_s", r.step_time_s},
                   {"compute_time_s", r.compute_time_s},
                   {"exposed_stream_time_s", r.exposed_stream_time_s},
                   {"optimizer_time_s", r.optimizer_time_s},
                   {"end_time_s", r.end_time_s},
                   {"step_end_s", r.step_end_s},
                   {"activities", r.activities},
                   {"first_weights_wait_s", r.first_weights_wait_s},
                   {"microbatch_start_s", r.microbatch_start_s},
                   {"microbatch_end_s", r.microbatch_end_s},
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
  r.exposed_stream_time_s = j.at("exposed_stream_time_s");
  r.optimizer_time_s = j.at("optimizer_time_s");
  r.end_time_s = j.at("end_time_s");
  r.step_end_s = j.at("step_end_s").get<std::vector<double>>();
  r.activities = j.at("activities");
  r.first_weights_wait_s = j.at("first_weights_wait_s");
  r.microbatch_start_s = j.at("microbatch_start_s").get<std::vector<double>>();
  r.microbatch_end_s = j.at("microbatch_end_s").get<std::vector<double>>();
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

// A forked process whose output comes back through a pipe.
struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::string output;
};

// Forks a child that writes body()'s text and exits 0, or writes {"error": ...} and exits 3.
// The child is killed when this process dies.
Child spawn(const std::function<std::string()>& body) {
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
    // Die with the parent: a killed run leaves no simulation running.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(5);
    ::close(fds[0]);
    int status = 0;
    try {
      write_all(fds[1], body());
    } catch (const std::exception& e) {
      write_all(fds[1], nlohmann::json{{"error", e.what()}}.dump());
      status = 3;
    } catch (...) {
      write_all(fds[1], nlohmann::json{{"error", "unknown exception"}}.dump());
      status = 3;
    }
    ::close(fds[1]);
    _exit(status);
  }
  ::close(fds[1]);
  return {pid, fds[0], {}};
}

// Reads what is there; true at end of output.
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

// Waits for an ended child; throws with its error when it failed.
void reap(Child& c) {
  ::close(c.fd);
  int status = 0;
  pid_t waited = 0;
  while ((waited = ::waitpid(c.pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (waited != c.pid) throw std::runtime_error("simulation process could not be waited for");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string why = WIFSIGNALED(status) ? fmt::format("signal {}", WTERMSIG(status))
                                          : fmt::format("status {}", WEXITSTATUS(status));
    std::string inner;
    try {
      inner = nlohmann::json::parse(c.output).at("error").get<std::string>();
    } catch (...) {
    }
    // A share's failure reaches the caller through its engine process: report it once.
    if (inner.starts_with("simulation process failed")) throw std::runtime_error(inner);
    if (!inner.empty()) why += ": " + inner;
    throw std::runtime_error("simulation process failed (" + why + ")");
  }
}

// Runs body(i) for i < count in children, at most `processes` at once; outputs in order.
std::vector<std::string> run_children(std::size_t count, int processes,
                                      const std::function<std::string(std::size_t)>& body) {
  std::vector<std::string> outputs(count);
  std::map<std::size_t, Child> running;  // by index
  std::size_t next = 0;
  while (next < count || !running.empty()) {
    while (next < count && static_cast<int>(running.size()) < std::max(1, processes)) {
      const std::size_t i = next++;
      running.emplace(i, spawn([&body, i] { return body(i); }));
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
      reap(c);
      outputs[which[f]] = std::move(c.output);
      running.erase(which[f]);
    }
  }
  return outputs;
}

// The inputs of one cluster shape: a process builds the engine and the platform, then forks one
// child per share of the plans (plan i goes to share i % kShares), which simulates its plans one
// after another. The shares do not depend on `processes`, so neither do the results.
std::vector<SimulationResult> run_cluster(const std::vector<SimulationInput>& inputs,
                                          int processes) {
  const std::size_t shares = std::min<std::size_t>(inputs.size(), kShares);
  Child session = spawn([&] {
    EngineSession engine(inputs.front());
    auto run_share = [&](std::size_t share) {
      nlohmann::json out = nlohmann::json::array();
      for (std::size_t i = share; i < inputs.size(); i += shares)
        out.push_back(to_json(engine.run(inputs[i])));
      // Doubles round-trip exactly: nlohmann::json prints the shortest exact form.
      return out.dump();
    };
    // One share runs here; more run in children. Their JSON arrays are joined as text.
    const auto outputs = shares == 1 ? std::vector<std::string>{run_share(0)}
                                     : run_children(shares, processes, run_share);
    std::string all = "[";
    for (std::size_t n = 0; n < outputs.size(); ++n) {
      if (n > 0) all += ',';
      all += outputs[n];
    }
    return all + "]";
  });
  while (!read_some(session)) {
  }
  reap(session);
  const auto all = nlohmann::json::parse(session.output);
  std::vector<SimulationResult> results(inputs.size());
  if (all.size() != shares) throw std::runtime_error("simulation process returned too few results");
  for (std::size_t share = 0; share < shares; ++share) {
    std::size_t i = share;
    for (const auto& j : all[share]) {
      if (i >= inputs.size())
        throw std::runtime_error("simulation process returned too many results");
      results[i] = from_json(j);
      i += shares;
    }
    if (i < inputs.size()) throw std::runtime_error("simulation process returned too few results");
  }
  return results;
}

// One engine per cluster shape (platform, num_csx, representative), inputs kept in order.
std::vector<SimulationResult> run_grouped(const std::vector<SimulationInput>& inputs,
                                          int processes) {
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
    auto results = run_cluster(group, processes);
    for (std::size_t m = 0; m < members.size(); ++m) out[members[m]] = std::move(results[m]);
  }
  return out;
}

}  // namespace

int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

std::vector<SimulationResult> simulate_all(const std::vector<SimulationInput>& inputs,
                                           int processes) {
  for (const auto& in : inputs)
    if (in.simulated_steps < 2) throw std::invalid_argument("simulate at least two steps");
  if (processes <= 0) processes = available_cpus();
  // Each round simulates the reduced plans; a plan whose check fails loses that reduction and
  // goes to the next round (at most one per reduction, then it runs in full).
  std::vector<SimulationInput> current = inputs;
  std::vector<SimulationResult> results(inputs.size());
  std::vector<std::size_t> pending(inputs.size());
  for (std::size_t i = 0; i < pending.size(); ++i) pending[i] = i;
  while (!pending.empty()) {
    std::vector<SimulationInput> round;
    std::vector<bool> reduced;
    for (const auto i : pending) {
      auto r = reduced_input(current[i]);
      reduced.push_back(r.has_value());
      round.push_back(r ? std::move(*r) : current[i]);
    }
    auto out = run_grouped(round, processes);
    std::vector<std::size_t> again;
    for (std::size_t n = 0; n < pending.size(); ++n) {
      const auto i = pending[n];
      if (!reduced[n]) {
        results[i] = std::move(out[n]);
      } else if (auto full = extend_result(current[i], std::move(out[n]))) {
        results[i] = std::move(*full);
      } else {
        again.push_back(i);
      }
    }
    pending = std::move(again);
  }
  for (std::size_t i = 0; i < results.size(); ++i) plan::summarize(inputs[i], results[i]);
  return results;
}

SimulationResult simulate(const SimulationInput& input) {
  return simulate_all({input}).front();
}

}  // namespace csx::engine
