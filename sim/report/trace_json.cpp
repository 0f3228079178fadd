// Trace events -> Chrome trace JSON.
#include "report/trace_json.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <variant>

#include "report/results_json.hpp"

namespace csx::io {
namespace {

// Sort key of a track: steps and MemoryX first, then SwarmX from the top level down (broadcast
// before reduce), then csx-N by N, each with its input workers (when simulated) under it.
std::tuple<int, long, long> track_rank(const std::string& track) {
  static const std::vector<std::string> fixed{"steps", "step overhead", "memoryx stream",
                                              "memoryx optimizer"};
  const auto it = std::find(fixed.begin(), fixed.end(), track);
  if (it != fixed.end()) return {0, it - fixed.begin(), 0};
  const std::string swarmx = "swarmx level ";
  if (track.rfind(swarmx, 0) == 0) {
    std::size_t digits = 0;
    const long level = std::stol(track.substr(swarmx.size()), &digits);
    const bool reduce = track.substr(swarmx.size() + digits) == " reduce";
    return {1, -level, reduce ? 1 : 0};
  }
  if (track.rfind("csx-", 0) == 0) return {2, std::stol(track.substr(4)), 0};
  // The input workers of csx-N right under it.
  if (track.rfind("input csx-", 0) == 0) return {2, std::stol(track.substr(10)), 1};
  return {3, 0, 0};
}

nlohmann::ordered_json args_json(const plan::TraceArgs& args) {
  auto out = nlohmann::ordered_json::object();
  for (const auto& arg : args)  // not a structured binding: clang 14 cannot capture one
    std::visit([&out, &arg](const auto& v) { out[arg.first] = v; }, arg.second);
  return out;
}

}  // namespace

std::string chrome_trace_json(const std::vector<plan::TraceEvent>& events,
                              const std::string& title) {
  std::vector<std::string> tracks;
  for (const auto& e : events)
    if (!e.counter && std::find(tracks.begin(), tracks.end(), e.track) == tracks.end())
      tracks.push_back(e.track);
  std::stable_sort(tracks.begin(), tracks.end(),
                   [](const auto& a, const auto& b) { return track_rank(a) < track_rank(b); });
  std::map<std::string, int> tid;
  nlohmann::ordered_json out;
  auto& list = out["traceEvents"] = nlohmann::ordered_json::array();
  list.push_back(
      {{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 0}, {"args", {{"name", title}}}});
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    tid[tracks[i]] = static_cast<int>(i + 1);
    list.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"tid", static_cast<int>(i + 1)},
                    {"args", {{"name", tracks[i]}}}});
    list.push_back({{"name", "thread_sort_index"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"tid", static_cast<int>(i + 1)},
                    {"args", {{"sort_index", i}}}});
  }
  for (const auto& e : events) {
    if (e.counter) continue;
    nlohmann::ordered_json x{{"name", e.name},
                             {"cat", e.category},
                             {"ph", "X"},
                             {"ts", e.start_s * 1e6},
                             {"dur", (e.end_s - e.start_s) * 1e6},
                             {"pid", 1},
                             {"tid", tid[e.track]}};
    if (!e.args.empty()) x["args"] = args_json(e.args);
    list.push_back(std::move(x));
  }
  // Counters (process-wide in the format): by name, each in time order.
  std::vector<const plan::TraceEvent*> counters;
  for (const auto& e : events)
    if (e.counter) counters.push_back(&e);
  std::stable_sort(counters.begin(), counters.end(), [](const auto* a, const auto* b) {
    return std::tie(a->track, a->start_s) < std::tie(b->track, b->start_s);
  });
  for (const auto* e : counters)
    list.push_back(nlohmann::ordered_json{{"name", e->track},
                                          {"cat", e->category},
                                          {"ph", "C"},
                                          {"ts", e->start_s * 1e6},
                                          {"pid", 1},
                                          {"args", args_json(e->args)}});
  out["displayTimeUnit"] = "ms";
  return json_text(out, 1) + "\n";
}

}  // namespace csx::io
