// The job options' text read into app::Overrides.
#include "app/job_options.hpp"

#include <fmt/format.h>

#include "app/amounts.hpp"
#include "batching/mbs_setting.hpp"
#include "common/errors.hpp"
#include "common/whole_number.hpp"

namespace csx::app {

std::optional<std::int64_t> optional_count(const std::optional<std::string>& text,
                                           const std::string& flag) {
  if (!text) return std::nullopt;
  return csx::parse_whole(*text, flag, 1);
}

std::optional<std::int64_t> read_jobs(const std::optional<std::string>& text, const char* what) {
  const auto jobs = optional_count(text, "--jobs");
  if (jobs && *jobs > kMaxJobs)
    throw InputError(fmt::format("--jobs = {}: at most {} {} run at once", *jobs, kMaxJobs, what));
  return jobs;
}

Overrides read_overrides(const GivenOptions& given, bool grid) {
  Overrides o;
  if (!grid) {
    o.num_csx = optional_count(given.text("num-csx"), "--num-csx");
    o.batch_size = optional_count(given.text("batch-size"), "--batch-size");
  }
  if (const auto mbs = given.text("micro-batch-size"))
    o.micro_batch_size = batching::parse_mbs_setting(*mbs, "--micro-batch-size");
  o.platform = given.text("platform");
  if (const auto mode = given.text("mode")) o.mode = io::parse_mode(*mode, "--mode");
  o.compile_only = given.has("compile-only");
  o.training_steps = optional_count(given.text("steps"), "--steps");
  o.max_explore = optional_count(given.text("max-explore"), "--max-explore");
  if (const auto tokens = given.text("tokens")) {
    if (o.training_steps)
      throw InputError("--steps and --tokens both set the training length: pass one");
    o.tokens = parse_amount(*tokens, "--tokens");
    o.tokens_text = *tokens;
  }
  // A whole number of any sign goes to make_job's range check (2 to 100), which names it.
  if (const auto sim_steps = given.text("sim-steps"))
    o.simulated_steps = parse_whole(*sim_steps, "--sim-steps");
  if (const auto rate = given.text("input-rate")) {
    const auto refuse = [&] {
      return InputError(
          fmt::format("--input-rate {}: {} (e.g. 400 or 1.5K)", *rate, io::input_rate_rule()));
    };
    try {
      o.input_samples_per_s = parse_amount(*rate, "--input-rate");
    } catch (const InputError&) {
      throw refuse();
    }
    if (!(*o.input_samples_per_s >= io::kMinInputRate &&
          *o.input_samples_per_s <= io::kMaxInputRate))
      throw refuse();
  }
  o.platform_overrides = read_platform_overrides(given.texts("platform-override"));
  return o;
}

bool same_setting(const std::string& a, const std::string& b) {
  const auto colon_a = a.find(':'), colon_b = b.find(':');
  const std::string pa = colon_a == std::string::npos ? "" : a.substr(0, colon_a);
  const std::string pb = colon_b == std::string::npos ? "" : b.substr(0, colon_b);
  const std::string ka = colon_a == std::string::npos ? a : a.substr(colon_a + 1);
  const std::string kb = colon_b == std::string::npos ? b : b.substr(colon_b + 1);
  return ka == kb && (pa.empty() || pb.empty() || pa == pb);
}

std::vector<std::pair<std::string, std::string>> read_platform_overrides(
    const std::vector<std::string>& texts) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& kv : texts) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos)
      throw InputError(fmt::format("--platform-override {}: expected KEY=VALUE", kv));
    if (eq == 0)
      throw InputError(fmt::format("--platform-override {}: an empty KEY, expected KEY=VALUE", kv));
    const std::string key = kv.substr(0, eq);
    for (const auto& [k, v] : out)
      if (same_setting(k, key))
        throw InputError(
            fmt::format("--platform-override {}: {} is set twice (also {}={})", kv, key, k, v));
    out.emplace_back(key, kv.substr(eq + 1));
  }
  return out;
}

}  // namespace csx::app
