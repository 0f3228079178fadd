// The table, answers and final answer of `csxsim plan`.
#include "cli/plan_report.hpp"

#include <fmt/format.h>
#include <string>
#include <vector>

#include "app/amounts.hpp"

namespace csx::cli {
namespace {

using app::Evaluation;
using app::human_duration;
using app::human_duration_range;
using app::human_durations_apart;

// The note of a search that saw more systems take longer, naming which sizes it evaluated.
std::string monotony_note(const app::NonMonotony& m) {
  const auto miss = m.last_doubling_miss;
  const std::string scanned =
      m.scanned_to > miss
          ? fmt::format(
                "every size from {} to {} was evaluated or ruled out by a smaller one "
                "of the same per-system batch, below {} only the doubling sizes (1, "
                "2, 4, ..., {}: the others are taken to miss as {} does)",
                miss + 1, m.scanned_to, miss + 1, miss, miss)
          : fmt::format("only the doubling sizes (1, 2, 4, ..., {}) were evaluated", miss);
  return fmt::format(
      "note: the time to train is not monotone in num_csx here ({} takes {}, {} takes {}); "
      "{}",
      m.faster->key.num_csx, human_duration(m.faster->time.seconds), m.slower->key.num_csx,
      human_duration(m.slower->time.seconds), scanned);
}

// A table line: the fixed columns, then `last` (the deadline's yes/no, or why nothing runs)
// after two spaces when there is one.
void print_line(std::FILE* out, const std::string& columns, const std::string& last) {
  fmt::print(out, "{}{}\n", columns, last.empty() ? "" : "  " + last);
}

void print_table(std::FILE* out, const std::map<app::PointKey, Evaluation>& evaluations,
                 std::optional<double> deadline_s) {
  print_line(out,
             fmt::format("{:<16} {:>10} {:>8} {:>6} {:>15} {:>10} {:>12} {:>11} {:>14}", "platform",
                         "batch_size", "num_csx", "MBS", "tokens/step", "steps", "step_time_s",
                         "samples/s", "time_to_train"),
             deadline_s ? "meets deadline" : "");
  for (const auto& [key, e] : evaluations) {
    if (!e.chosen) {
      print_line(
          out,
          fmt::format("{:<16} {:>10} {:>8} {:>6} {:>15} {:>10} {:>12} {:>11} {:>14}", key.platform,
                      key.batch_size, key.num_csx, "-", "-", "-", "-", "-", "-"),
          e.why_not);
      continue;
    }
    print_line(out,
               fmt::format("{:<16} {:>10} {:>8} {:>6} {:>15} {:>10} {:>12.4f} {:>11.2f} {:>14}",
                           key.platform, key.batch_size, key.num_csx, e.chosen->micro_batch_size,
                           e.tokens_per_step, e.steps, e.chosen->sim.step_time_s,
                           e.chosen->samples_per_s, human_duration(e.time.seconds)),
               deadline_s ? (e.time.seconds <= *deadline_s ? "yes" : "no") : "");
  }
}

// The answer for one cluster: the time to train with its 80 % interval (the step time's).
std::string summary(const Evaluation& e) {
  return fmt::format(
      "{} x {} (batch_size {}, micro_batch_size {}) trains in {} (80 % interval {}; {} steps x "
      "{:.4f} s, bound: {}{})",
      e.key.num_csx, e.key.platform, e.key.batch_size, e.chosen->micro_batch_size,
      human_duration(e.time.seconds),
      human_duration_range(e.time.low_s, e.time.high_s, e.time.seconds), e.steps,
      e.chosen->sim.step_time_s, e.chosen->sim.bound,
      e.chosen->sim.bound == "input" ? ": more dataloader processes (num_workers) would shorten "
                                       "the step; `csxsim run` says how many"
                                     : "");
}

// The answer lines of one platform and batch (with a deadline) or one cluster (without).
void add_answer(std::vector<std::string>& lines, std::vector<std::string>& notes,
                const app::PlanAnswer& a, std::optional<double> deadline_s) {
  if (!deadline_s) {
    const auto& e = *a.evaluation;
    lines.push_back(e.chosen
                        ? fmt::format("{}, batch_size {}: {}", a.label, a.batch_size, summary(e))
                        : fmt::format("{}, batch_size {}, num_csx {}: {}", a.label, a.batch_size,
                                      e.key.num_csx, e.why_not));
    return;
  }
  if (a.non_monotony) notes.push_back(monotony_note(*a.non_monotony));
  if (!a.evaluation) {
    lines.push_back(fmt::format("{}, batch_size {}: no num_csx up to {} ({}) meets {}{}", a.label,
                                a.batch_size, a.limit, a.limit_reason, human_duration(*deadline_s),
                                a.other ? "; the fastest evaluated: " + summary(*a.other)
                                        : "; nothing evaluated runs (the table says why)"));
    return;
  }
  const auto& e = *a.evaluation;
  std::string why = "one system suffices";
  auto deadline = human_duration(*deadline_s);
  if (a.other && a.other->chosen) {
    auto [text, other] = human_durations_apart(*deadline_s, a.other->time.seconds);
    deadline = std::move(text);
    why = fmt::format("{} would take {}", a.other->key.num_csx, other);
  } else if (a.other) {
    why = fmt::format("{}: {}", a.other->key.num_csx, a.other->why_not);
  }
  lines.push_back(fmt::format("{}, batch_size {}: {}, within {}; {}", a.label, a.batch_size,
                              summary(e), deadline, why));
}

}  // namespace

void print_plan(std::FILE* table, std::FILE* answers, const app::PlanOutcome& plan) {
  if (table) {
    print_table(table, plan.result.evaluations, plan.deadline_s);
    fmt::print(table, "\n");
  }
  std::vector<std::string> lines, notes;
  for (const auto& a : plan.result.answers) add_answer(lines, notes, a, plan.deadline_s);
  for (const auto& note : notes) fmt::print(stderr, "{}\n", note);
  for (const auto& line : lines) fmt::print(answers, "{}\n", line);
  if (const auto* best = plan.result.best)
    fmt::print(answers, "answer: {}\n",
               plan.deadline_s ? fmt::format("smallest cluster: {}", summary(*best))
                               : fmt::format("fastest: {}", summary(*best)));
}

}  // namespace csx::cli
