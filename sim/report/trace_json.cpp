// Trace events -> Chrome trace JSON.
#include "report/trace_json.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace csx::io {
namespace {

// Sort key of a track: fixed tracks first, then csx-N by N.
std::pair<int, long> track_rank(const std::string& track) {
  static const std::vector<std::string> fixed{"steps", "memoryx stream", "memoryx optimizer",
                                              "swarmx broadcast", "swarmx reduce"};
  const auto it = std::find(fixed.begin(), fixed.end(), track);
  if (it != fixed.end()) return {0, it - fixed.begin()};
  if (track.rfind("csx-", 0) == 0) return {1, std::stol(track.substr(4))};
  return {2, 0};
}

}  // namespace

std::string chrome_trace_json(const std::vector<plan::TraceEvent>& events,
                              const std::string& title) {
  std::vector<std::string> tracks;
  for (const auto& e : events)
    if (std::find(tracks.begin(), tracks.end(), e.track) == tracks.end()) tracks.push_back(e.track);
  std::sort(tracks.begin(), tracks.end(),
            [](const auto& a, const auto& b) { return track_rank(a) < track_rank(b); });
  std::map<std::string, int> tid;
  nlohmann::ordered_json out;
  auto& list = out["traceEvents"] = nlohmann::json::array();
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
  for (const auto& e : events)
    list.push_back(nlohmann::ordered_json{{"name", e.name},
                                          {"cat", e.category},
                                          {"ph", "X"},
                                          {"ts", e.start_s * 1e6},
                                          {"dur", (e.end_s - e.start_s) * 1e6},
                                          {"pid", 1},
                                          {"tid", tid[e.track]}});
  out["displayTimeUnit"] = "ms";
  return out.dump(1) + "\n";
}

}  // namespace csx::io
