// `csxsim candidates`: the batching rules alone (app/candidates.hpp), as text or JSON.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/candidates.hpp"
#include "batching/step_plan.hpp"
#include "cli/commands.hpp"
#include "cli/option_descriptions.hpp"
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

void print_candidates(const batching::BatchSplit& split,
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
  fmt::print("micro_batch_size {} -> {} ({} microbatch{}{})\n", requested, r.micro_batch_size,
             r.num_microbatches, r.num_microbatches == 1 ? "" : "es",
             r.adjusted ? ", adjusted" : "");
  if (!r.notice.empty()) fmt::print("notice: {}\n", r.notice);
  const auto plan = batching::make_plan(split, r.micro_batch_size);
  for (const auto b : split.distinct_batches()) {
    const std::int64_t systems = b == split.per_system_batch_size
                                     ? split.num_full_systems
                                     : split.num_csx - split.num_full_systems;
    fmt::print("plan: {} system(s) with {} samples run {} microbatch{}: {}\n", systems, b,
               plan.num_microbatches, plan.num_microbatches == 1 ? "" : "es",
               format_groups(plan.microbatch_groups(b)));
  }
}

}  // namespace

int candidates_command(const Args& args) {
  const auto vm = parse_command(args, "candidates");
  if (!vm) return 0;
  const auto given = given_options(*vm, "candidates");
  const auto c = app::candidates(*given.text("batch-size"), *given.text("num-csx"),
                                 given.text("micro-batch-size").value_or("auto"));
  if (vm->count("json"))
    fmt::print("{}\n", io::json_text(app::candidates_json(c), 2));
  else
    print_candidates(c.split, c.supported, c.resolution);
  return 0;
}

}  // namespace csx::cli
