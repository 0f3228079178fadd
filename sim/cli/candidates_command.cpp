// `csxsim candidates`: the batching rules alone, no model and no simulation.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "batching/resolve.hpp"
#include "batching/step_plan.hpp"
#include "batching/supported_sizes.hpp"
#include "cli/commands.hpp"
#include "cli/json_views.hpp"
#include "cli/option_descriptions.hpp"
#include "common/errors.hpp"
#include "common/whole_number.hpp"
#include "report/results_json.hpp"

namespace csx::cli {
namespace {

std::string describe_systems(const batching::BatchSplit& s) {
  if (s.num_full_systems == s.num_csx)
    return fmt::format("{} x {}", s.num_csx, s.per_system_batch_size);
  return fmt::format("{} x {} + {} x {}", s.num_full_systems, s.per_system_batch_size,
                     s.num_csx - s.num_full_systems, s.per_system_batch_size - 1);
}

// "[2, 2, 2]" for short lists, "40 x 3 + 8 x 2" otherwise.
std::string format_groups(const std::vector<std::pair<std::int64_t, std::int64_t>>& groups) {
  std::int64_t total = 0;
  for (const auto& g : groups) total += g.second;
  std::vector<std::string> parts;
  if (total <= 16) {
    for (const auto& [size, count] : groups)
      for (std::int64_t i = 0; i < count; ++i) parts.push_back(std::to_string(size));
    return fmt::format("[{}]", fmt::join(parts, ", "));
  }
  for (const auto& [size, count] : groups) parts.push_back(fmt::format("{} x {}", count, size));
  return fmt::format("{}", fmt::join(parts, " + "));
}

void print_text(const batching::BatchSplit& split,
                const std::vector<batching::SupportedSize>& supported,
                const batching::Resolution& r) {
  fmt::print("batch_size {} over num_csx {}: per-system batches {} (P = {})\n", split.batch_size,
             split.num_csx, describe_systems(split), split.per_system_batch_size);
  fmt::print("supported micro_batch_size values S({}): {} values\n", split.per_system_batch_size,
             supported.size());
  fmt::print("  {:>12}  {:>16}\n", "MBS", "num_microbatches");
  for (auto it = supported.rbegin(); it != supported.rend(); ++it)
    fmt::print("  {:>12}  {:>16}\n", it->micro_batch_size, it->num_microbatches);
  const std::string requested = batching::to_string(r.requested);
  if (r.micro_batch_size == 0) {
    fmt::print("micro_batch_size {}: a search evaluates {} candidates: {}\n", requested,
               r.candidates.size(), fmt::join(r.candidates, ", "));
    return;
  }
  fmt::print("micro_batch_size {} -> {} ({} microbatches{})\n", requested, r.micro_batch_size,
             r.num_microbatches, r.adjusted ? ", adjusted" : "");
  if (!r.notice.empty()) fmt::print("notice: {}\n", r.notice);
  const auto plan = batching::make_plan(split, r.micro_batch_size);
  for (const auto b : split.distinct_batches()) {
    const std::int64_t systems = b == split.per_system_batch_size
                                     ? split.num_full_systems
                                     : split.num_csx - split.num_full_systems;
    fmt::print("plan: {} system(s) with {} samples run {} microbatches: {}\n", systems, b,
               plan.num_microbatches, format_groups(plan.microbatch_groups(b)));
  }
}

nlohmann::ordered_json to_json(const batching::BatchSplit& split,
                               const std::vector<batching::SupportedSize>& supported,
                               const batching::Resolution& r) {
  nlohmann::ordered_json j;
  j["batch_size"] = split.batch_size;
  j["num_csx"] = split.num_csx;
  j["per_system_batch_sizes"] = split.per_system_batch_sizes();
  j["per_system_batch_size"] = split.per_system_batch_size;
  auto& s = j["supported_micro_batch_sizes"] = nlohmann::json::array();
  auto& k = j["num_microbatches_by_size"] = nlohmann::json::array();
  for (const auto& v : supported) {
    s.push_back(v.micro_batch_size);
    k.push_back(v.num_microbatches);
  }
  j["requested_micro_batch_size"] = batching::to_string(r.requested);
  if (r.micro_batch_size > 0) {
    j["micro_batch_size"] = r.micro_batch_size;
    j["num_microbatches"] = r.num_microbatches;
    const auto plan = batching::make_plan(split, r.micro_batch_size);
    auto& systems = j["systems"] = nlohmann::json::array();
    for (const auto b : split.distinct_batches()) {
      nlohmann::ordered_json g;
      g["num_systems"] = b == split.per_system_batch_size ? split.num_full_systems
                                                          : split.num_csx - split.num_full_systems;
      g["system_batch_size"] = b;
      for (const auto& [size, count] : plan.microbatch_groups(b))
        g["microbatches"].push_back({{"micro_batch_size", size}, {"count", count}});
      systems.push_back(g);
    }
  } else {
    j["micro_batch_size"] = nullptr;
    j["num_microbatches"] = nullptr;
  }
  j["adjusted"] = r.adjusted;
  j["notice"] = r.notice;
  j["candidates"] = r.candidates;
  return j;
}

// The batching rules of B over N with setting `mbs`, resolved as the CLI does.
struct Candidates {
  batching::BatchSplit split;
  std::vector<batching::SupportedSize> supported;
  batching::Resolution resolution;
};

Candidates candidates(const std::string& batch, const std::string& num_csx,
                      const std::string& mbs) {
  const auto split = batching::split_batch(csx::parse_whole(batch, "--batch-size", 1),
                                           csx::parse_whole(num_csx, "--num-csx", 1));
  const auto setting = batching::parse_mbs_setting(mbs, "--micro-batch-size");
  // No model here: assume a transformer and compile-only, so every setting can be shown.
  const auto r = batching::resolve(setting, split, {"(any transformer)", true, false}, true);
  return {split, batching::supported_micro_batch_sizes(split.per_system_batch_size), r};
}

}  // namespace

nlohmann::ordered_json candidates_json(const std::string& batch, const std::string& num_csx,
                                       const std::string& mbs) {
  const auto c = candidates(batch, num_csx, mbs);
  return to_json(c.split, c.supported, c.resolution);
}

int candidates_command(const Args& args) {
  const auto vm = parse_command(args, "candidates");
  if (!vm) return 0;
  const auto given = given_options(*vm, "candidates");
  const auto c = candidates(*given.text("batch-size"), *given.text("num-csx"),
                            given.text("micro-batch-size").value_or("auto"));
  if (vm->count("json"))
    fmt::print("{}\n", io::json_text(to_json(c.split, c.supported, c.resolution), 2));
  else
    print_text(c.split, c.supported, c.resolution);
  return 0;
}

}  // namespace csx::cli
