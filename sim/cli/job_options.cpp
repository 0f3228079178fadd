// The job options' text read into app::Overrides.
#include "cli/job_options.hpp"

#include <fmt/format.h>

#include "batching/mbs_setting.hpp"
#include "cli/amounts.hpp"
#include "common/errors.hpp"
#include "common/whole_number.hpp"

namespace csx::cli {

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

JobOptionTexts job_option_texts(const app::GivenOptions& given) {
  JobOptionTexts t;
  t.num_csx = given.text("num-csx");
  t.batch_size = given.text("batch-size");
  t.micro_batch_size = given.text("micro-batch-size");
  t.platform = given.text("platform");
  t.mode = given.text("mode");
  t.steps = given.text("steps");
  t.tokens = given.text("tokens");
  t.sim_steps = given.text("sim-steps");
  t.max_explore = given.text("max-explore");
  t.compile_only = given.has("compile-only");
  t.platform_overrides = given.texts("platform-override");
  return t;
}

app::Overrides read_overrides(const JobOptionTexts& t, bool grid) {
  app::Overrides o;
  if (!grid) {
    o.num_csx = optional_count(t.num_csx, "--num-csx");
    o.batch_size = optional_count(t.batch_size, "--batch-size");
  }
  if (t.micro_batch_size)
    o.micro_batch_size = batching::parse_mbs_setting(*t.micro_batch_size, "--micro-batch-size");
  o.platform = t.platform;
  if (t.mode) o.mode = io::parse_mode(*t.mode, "--mode");
  o.compile_only = t.compile_only;
  o.training_steps = optional_count(t.steps, "--steps");
  o.max_explore = optional_count(t.max_explore, "--max-explore");
  if (t.tokens) {
    if (o.training_steps)
      throw InputError("--steps and --tokens both set the training length: pass one");
    o.tokens = parse_amount(*t.tokens, "--tokens");
  }
  if (t.sim_steps) {
    // A whole number of any sign goes to make_job's range check (2 to 100), which names it.
    o.simulated_steps = parse_whole(*t.sim_steps, "--sim-steps");
  }
  o.platform_overrides = read_platform_overrides(t.platform_overrides);
  return o;
}

std::vector<std::pair<std::string, std::string>> read_platform_overrides(
    const std::vector<std::string>& texts) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& kv : texts) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos)
      throw InputError(fmt::format("--platform-override {}: expected KEY=VALUE", kv));
    const std::string key = kv.substr(0, eq);
    for (const auto& [k, v] : out)
      if (k == key)
        throw InputError(
            fmt::format("--platform-override {}: {} is set twice (also {}={})", kv, key, k, v));
    out.emplace_back(key, kv.substr(eq + 1));
  }
  return out;
}

}  // namespace csx::cli
