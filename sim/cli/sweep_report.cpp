// The summary `csxsim sweep` prints: the chosen row of each point and the totals.
#include "cli/sweep_report.hpp"

#include <fmt/format.h>
#include <limits>
#include <set>

#include "app/amounts.hpp"
#include "report/results_csv.hpp"

namespace csx::cli {
namespace {

using app::PointKey;
using app::SweepTable;

// The chosen row of each point, one line each, and the totals.
void print_summary(std::FILE* out, const SweepTable& table, std::size_t run_now, std::size_t kept,
                   std::size_t refused, double elapsed_s, const std::string& csv) {
  const auto col = [](const char* name) { return io::csv_column(name); };
  const std::size_t chosen = col("chosen"), mbs = col("micro_batch_size"),
                    step = col("step_time_s"), sps = col("samples_per_s"), mfu = col("mfu"),
                    bound = col("bound"), ttt = col("time_to_train_s"), mode = col("mode");
  fmt::print(out, "{:<16} {:>8} {:>10} {:>6} {:>8} {:>12} {:>12} {:>7} {:>14}  {}\n", "platform",
             "num_csx", "batch_size", "mode", "MBS", "step_time_s", "samples/s", "MFU",
             "time_to_train", "bound");
  std::set<std::pair<PointKey, std::string>> with_choice;
  const auto text = [](const io::Value& v) { return io::field_text(v); };
  // A chosen row is simulated, its timings set (read_results_csv refuses one without); a null
  // reads as NaN rather than throwing.
  const auto real = [](const io::Value& v) {
    const double* x = std::get_if<double>(&v);
    return x ? *x : std::numeric_limits<double>::quiet_NaN();
  };
  table.for_each_row([&](const PointKey& key, const io::Record& f) {
    if (f[chosen] != io::Value(true)) return true;
    with_choice.emplace(key, text(f[mode]));
    fmt::print(out, "{:<16} {:>8} {:>10} {:>6} {:>8} {:>12.4f} {:>12.2f} {:>6.1f}% {:>14}  {}\n",
               key.platform, key.num_csx, key.batch_size, text(f[mode]), text(f[mbs]),
               real(f[step]), real(f[sps]), 100 * real(f[mfu]),
               std::get_if<double>(&f[ttt]) ? app::human_duration(real(f[ttt])) : "-",
               text(f[bound]));
    return true;
  });
  table.for_each_row([&](const PointKey& key, const io::Record& f) {
    if (with_choice.emplace(key, text(f[mode])).second)
      fmt::print(out, "{:<16} {:>8} {:>10} {:>6} {:>8}  nothing fits\n", key.platform, key.num_csx,
                 key.batch_size, text(f[mode]), "-");
    return true;
  });
  fmt::print(out,
             "sweep: {} point{} ({} run now, {} kept from before, {} refused) in {:.1f} s -> {}\n",
             table.points.size(), table.points.size() == 1 ? "" : "s", run_now, kept, refused,
             elapsed_s, csv);
}

}  // namespace

void print_sweep_summary(std::FILE* out, const app::SweepOutcome& s, const std::string& csv) {
  print_summary(out, s.table, s.table.points.size() - s.kept, s.kept, s.refused, s.elapsed_s, csv);
}

}  // namespace csx::cli
