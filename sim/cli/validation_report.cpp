// The report of `csxsim validate`: each check of app::execute_validate, entry by entry, with the
// tables and summaries (docs/calibration.md#accuracy).
#include "cli/validation_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>

namespace csx::cli {
namespace {

// A group of measured runs: its table, each entry's notes, its MAPE (not for input-bound runs,
// whose measured rates are the input pipeline's).
void print_group(std::FILE* out, const app::MeasurementGroup& g) {
  if (g.checks.empty()) return;
  fmt::print(out, "{}\n{:<18} {:<5} {:>3} {:>6} {:>6} {:>5} {:>11} {:>12} {:>8}  {:<16} {}\n",
             g.title, "entry", "plat", "N", "batch", "MSL", "MBS", "measured/s", "simulated/s",
             "error", "release", "bound");
  for (const auto& [e, check] : g.checks) {
    const auto& c = check.chosen;
    fmt::print(out,
               "{:<18} {:<5} {:>3} {:>6} {:>6} {:>5} {:>11.2f} {:>12.2f} {:>+7.1f}%  {:<16} {}\n",
               e.name, e.platform, e.num_csx, e.batch_size, check.seq_len, c.micro_batch_size,
               e.samples_per_s, c.samples_per_s, check.error_pct, e.release, c.sim.bound);
    if (!e.unexplained.empty())
      fmt::print(out, "  not explained by the model: {}\n", e.unexplained);
    if (g.input_bound)
      fmt::print(out, "  {}: {}\n",
                 check.at_least_measured ? "consistent (simulated compute rate >= measured)"
                                         : "INCONSISTENT: the simulated compute rate is below the "
                                           "measured input-bound rate",
                 e.reason);
    if (check.fed)
      fmt::print(out,
                 "  with its input workers at the platform's {:g} samples/s per process: {:.2f}/s, "
                 "{:+.1f}%, bound: {}\n",
                 check.fed_rate_per_process, check.fed->samples_per_s, check.fed_error_pct,
                 check.fed->sim.bound);
  }
  if (g.input_bound)
    fmt::print(out,
               "not in the MAPE: the measured rates are the input pipeline's. csxsim simulates the "
               "input at a given --input-rate, or at the platform's measured rate for a data "
               "processor it has one for (ImageNet1KProcessor: set from the ViT-B/16 runs above, "
               "so their errors are in-sample)\n\n");
  else
    fmt::print(out, "MAPE {:.1f}% over {} entries; largest error {:+.1f}% ({})\n\n",
               g.errors.mape(), g.errors.n, g.errors.worst, g.errors.worst_name);
}

// What the real `auto` chose, against the simulated choice.
void print_decisions(std::FILE* out, const app::ValidateOutcome& v) {
  std::size_t matches = 0;
  for (const auto& [e, c] : v.decisions) {
    matches += c.matches ? 1 : 0;
    fmt::print(out,
               "auto decision {}: {} (expected {}, simulated {} of per-system batch {}; evaluated "
               "{}; the real stack tried {})\n  {}\n",
               e.name, c.matches ? "matches" : "DOES NOT MATCH", e.expected, c.chosen,
               c.per_system_batch, fmt::join(c.evaluated, ", "), fmt::join(e.tried, ", "),
               c.decision);
  }
  if (!v.decisions.empty())
    fmt::print(out, "auto decisions: {} of {} match\n\n", matches, v.decisions.size());
}

// Micro-batch sizes that compiled must fit.
void print_memory(std::FILE* out, const app::ValidateOutcome& v) {
  int failed = 0, skipped = 0, fitted = 0;
  for (const auto& [e, c] : v.memory_facts) {
    if (c.skipped) {
      ++skipped;
      continue;
    }
    const auto& m = c.memory;
    if (m.fits) {
      ++fitted;
      fmt::print(out, "memory fact {}: fits on {} (headroom {:.2f} GB; {})\n", e.name, e.platform,
                 std::max(0.0, m.headroom_bytes) / 1e9, m.activation_plan);
    } else {
      ++failed;
      fmt::print(out, "memory fact {}: DOES NOT FIT on {}: {}\n", e.name, e.platform, m.reason);
    }
  }
  if (!v.memory_facts.empty())
    fmt::print(out, "memory facts: {} of {} fit{}\n\n", fitted, fitted + failed,
               skipped ? fmt::format(" ({} skipped: model file absent)", skipped) : "");
}

// Where the preferred MBS ranks among all candidates (explore, compile-only).
void print_preferences(std::FILE* out, const app::ValidateOutcome& v) {
  for (const auto& [e, c] : v.preferences) {
    if (!c.rank)
      fmt::print(out, "preference {}: MBS {} is not a fitting candidate\n", e.name, e.preferred);
    else
      fmt::print(out,
                 "preference {}: MBS {} ranks {} of {} ({:.1f}% slower than the fastest, {})\n",
                 e.name, e.preferred, *c.rank, c.candidates, c.slower_pct, c.fastest);
  }
}

}  // namespace

void print_validation(std::FILE* out, const app::ValidateRequest& q,
                      const app::ValidateOutcome& v) {
  if (!q.base.platform_overrides.empty()) {
    std::string list;
    for (const auto& [key, value] : q.base.platform_overrides)
      list += fmt::format("{}{}={}", list.empty() ? "" : ", ", key, value);
    fmt::print(out, "platform overrides in effect: {}\n\n", list);
  }
  for (const auto& g : v.groups) print_group(out, g);
  print_decisions(out, v);
  print_memory(out, v);
  print_preferences(out, v);
}

}  // namespace csx::cli
