// `csxsim sweep`: options, app::execute_sweep, the summary; one CSV with rows sorted by the
// point.
#include <fmt/format.h>

#include "app/sweep_request.hpp"
#include "cli/commands.hpp"
#include "cli/option_descriptions.hpp"
#include "cli/output_flags.hpp"
#include "cli/sweep_report.hpp"
#include "common/errors.hpp"
#include "report/atomic_file.hpp"

namespace csx::cli {

int sweep_command(const Args& args) {
  const auto vm = parse_command(args, "sweep");
  if (!vm) return 0;
  auto q = app::read_sweep_request(given_options(*vm, "sweep"));
  check_output_flags(*vm, {"csv", "json"}, {q.scenario_file});
  // With --csv - or --json -, standard output carries the data alone: no summary.
  q.quiet = vm->count("quiet") > 0 || (data_on_stdout(*vm) && !q.check_only);
  const auto s = app::execute_sweep(q, stdout);
  if (s.checked_only) return 0;
  if (s.signal != 0) {
    if (q.csv == io::kStandardOutput)
      fmt::print(stderr,
                 "csxsim: interrupted: {} of {} points finished; --csv - writes nothing before "
                 "the end\n",
                 s.table.points.size(), s.total);
    else
      fmt::print(stderr,
                 "csxsim: interrupted: {} of {} points finished and kept in {}; run again with "
                 "--resume to finish\n",
                 s.table.points.size(), s.total, q.csv);
    return 128 + s.signal;
  }
  io::OutputFiles files;
  app::stage_sweep_outputs(files, q, s);
  if (!q.quiet) print_sweep_summary(stdout, s, q.csv);
  files.commit();
  if (const auto why = app::sweep_infeasible(s, q.csv); !why.empty()) throw InfeasibleError(why);
  return 0;
}

}  // namespace csx::cli
