// candidates: the batching rules of a batch, and their JSON.
#include "app/candidates.hpp"

#include <fmt/format.h>
#include <limits>

#include "batching/mbs_setting.hpp"
#include "batching/step_plan.hpp"
#include "common/errors.hpp"
#include "common/whole_number.hpp"

namespace csx::app {

Candidates candidates(const std::string& batch, const std::string& num_csx,
                      const std::string& mbs) {
  const auto b = csx::parse_whole(batch, "--batch-size", 1);
  const auto n = csx::parse_whole(num_csx, "--num-csx", 1);
  const auto split = [&] {
    try {
      return batching::split_batch(b, n);
    } catch (const RuleError& e) {  // B < N: name both flags
      throw RuleError(fmt::format("--batch-size {} and --num-csx {}: {}", b, n, e.what()));
    } catch (const InputError& e) {
      throw InputError(fmt::format("--batch-size {} and --num-csx {}: {}", b, n, e.what()));
    }
  }();
  const auto setting = batching::parse_mbs_setting(mbs, "--micro-batch-size");
  // No model here: assume a transformer and compile-only, so every setting can be shown; no
  // bound on explore's sizes, which are listed here, not simulated (that bound is run's).
  // A rule broken by the MBS setting names its flag, as run's does.
  try {
    const auto r = batching::resolve(setting, split, {"(any transformer)", true, false}, true,
                                     std::numeric_limits<std::int64_t>::max());
    return {split, batching::supported_micro_batch_sizes(split.per_system_batch_size), r};
  } catch (const RuleError& e) {
    throw RuleError(fmt::format("--micro-batch-size: {}", e.what()));
  } catch (const InputError& e) {
    throw InputError(fmt::format("--micro-batch-size: {}", e.what()));
  }
}

nlohmann::ordered_json candidates_json(const Candidates& c) {
  const auto& [split, supported, r] = c;
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

}  // namespace csx::app
