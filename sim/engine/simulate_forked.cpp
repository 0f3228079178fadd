// Runs simulations in forked processes (SimGrid's engine is process-wide) and passes results
// back through pipes as JSON. Per cluster shape, one process builds the engine and the platform
// and forks the children that share the plans.
#include <fmt/format.h>
#include <sched.h>
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
#include <variant>

#include "common/process_pool.hpp"
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
                   {"input_wait_s", r.input_wait_s},
                   {"microbatch_start_s", r.microbatch_start_s},
                   {"microbatch_end_s", r.microbatch_end_s},
                   {"microbatch_wait_s", r.microbatch_wait_s},
                   {"microbatch_compute_s", r.microbatch_compute_s}};
  auto& t = j["trace"] = nlohmann::json::array();
  for (const auto& e : r.trace) {
    // Arguments as [key, value] pairs, in order; a value keeps its type (integer, real, text).
    auto args = nlohmann::json::array();
    for (const auto& arg : e.args)  // not [key, value]: clang before 16 cannot capture a binding
      std::visit([&args, &arg](const auto& v) { args.push_back({arg.first, v}); }, arg.second);
    t.push_back({e.track, e.name, e.category, e.start_s, e.end_s, args, e.counter});
  }
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
  r.input_wait_s = j.at("input_wait_s");
  r.microbatch_start_s = j.at("microbatch_start_s").get<std::vector<double>>();
  r.microbatch_end_s = j.at("microbatch_end_s").get<std::vector<double>>();
  r.microbatch_wait_s = j.at("microbatch_wait_s").get<std::vector<double>>();
  r.microbatch_compute_s = j.at("microbatch_compute_s").get<std::vector<double>>();
  for (const auto& e : j.at("trace")) {
    plan::TraceArgs args;
    for (const auto& kv : e.at(5)) {
      const auto& v = kv.at(1);
      if (v.is_number_integer())
        args.emplace_back(kv.at(0).get<std::string>(), v.get<std::int64_t>());
      else if (v.is_number())
        args.emplace_back(kv.at(0).get<std::string>(), v.get<double>());
      else
        args.emplace_back(kv.at(0).get<std::string>(), v.get<std::string>());
    }
    r.trace.push_back({e.at(0).get<std::string>(), e.at(1).get<std::string>(),
                       e.at(2).get<std::string>(), e.at(3).get<double>(), e.at(4).get<double>(),
                       std::move(args), e.at(6).get<bool>()});
  }
  return r;
}

// Runs work(i) for i < count in children of the one pool, at most `processes` at once;
// outputs in order. A failed child's message reaches the caller once, however deep it was.
std::vector<std::string> run_children(std::size_t count, int processes,
                                      const std::function<std::string(std::size_t)>& work) {
  std::vector<std::string> outputs(count);
  std::string failure;
  run_in_children(
      count, PoolOptions{std::max(1, processes), false}, work,
      [&](std::size_t i, ChildOutcome c) {
        if (c.status == 0) {
          outputs[i] = std::move(c.output);
        } else if (failure.empty()) {
          failure = c.output.starts_with("simulation process failed")
                        ? c.output
                        : fmt::format("simulation process failed (status {}{}{})", c.status,
                                      c.output.empty() ? "" : ": ", c.output);
        }
      },
      [&] { return !failure.empty(); });
  if (!failure.empty()) throw std::runtime_error(failure);
  return outputs;
}

// The inputs of one cluster shape: a process builds the engine and the platform, then forks one
// child per share of the plans (plan i goes to share i % kShares), which simulates its plans one
// after another. The shares do not depend on `processes`, so neither do the results.
std::vector<SimulationResult> run_cluster(const std::vector<EngineRun>& inputs, int processes) {
  const std::size_t shares = std::min<std::size_t>(inputs.size(), kShares);
  const auto session = run_children(1, 1, [&](std::size_t) {
    EngineSession engine(inputs.front());
    auto run_share = [&](std::size_t share) {
      nlohmann::json out = nlohmann::json::array();
      for (std::size_t i = share; i < inputs.size(); i += shares)
        out.push_back(to_json(engine.run(inputs[i])));
      // Doubles round-trip exactly: nlohmann::json prints the shortest exact form.
      return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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
  const auto all = nlohmann::json::parse(session.front());
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

// One engine per cluster shape (platform, num_csx, representative and shown systems), inputs
// kept in order.
std::vector<SimulationResult> run_grouped(const std::vector<EngineRun>& inputs, int processes) {
  std::vector<SimulationResult> out(inputs.size());
  std::vector<bool> done(inputs.size(), false);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (done[i]) continue;
    std::vector<std::size_t> members;
    std::vector<EngineRun> group;
    for (std::size_t j = i; j < inputs.size(); ++j) {
      const auto& a = inputs[i];
      const auto& b = inputs[j];
      if (done[j] || a.options.representative != b.options.representative ||
          a.options.shown_systems != b.options.shown_systems ||
          a.input.plan.split.num_csx != b.input.plan.split.num_csx ||
          a.input.platform.source != b.input.platform.source ||
          a.input.platform.name != b.input.platform.name)
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

std::vector<SimulationResult> simulate_all(const std::vector<Run>& runs, int processes) {
  std::vector<EngineRun> engine_runs;
  for (const auto& run : runs) {
    if (run.input.simulated_steps < 2) throw std::invalid_argument("simulate at least two steps");
    engine_runs.push_back({run.input, run.options, {}});
  }
  if (processes <= 0) processes = available_cpus();
  auto results = simulate_reduced(engine_runs, [processes](const std::vector<EngineRun>& round) {
    return run_grouped(round, processes);
  });
  for (std::size_t i = 0; i < results.size(); ++i)
    plan::finish(runs[i].input, results[i], runs[i].options.record_trace);
  return results;
}

std::vector<SimulationResult> simulate_all(const std::vector<SimulationInput>& inputs,
                                           const Options& options, int processes) {
  std::vector<Run> runs;
  runs.reserve(inputs.size());
  for (const auto& input : inputs) runs.push_back({input, options});
  return simulate_all(runs, processes);
}

SimulationResult simulate(const SimulationInput& input, const Options& options) {
  return simulate_all({Run{input, options}}).front();
}

}  // namespace csx::engine
