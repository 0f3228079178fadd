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
  po::options_description desc("sweep options");
  add_command_options(desc, "sweep");
  const auto pos = command_arguments("sweep");
  const auto vm = parse_options(
      args,
      "csxsim sweep SCENARIO --num-csx LIST --batch-size LIST [--micro-batch-size SETTING] "
      "[--platform P1,P2,...] [--variant NAME:KEY=VALUE,...] [--mode ...] [--steps S | --tokens T] "
      "--csv OUT [--jobs J] [--shard I/N] [--resume] [--check-only]",
      desc, &pos);
  if (!vm) return 0;
  auto q = app::read_sweep_request(given_options(*vm, "sweep"));
  q.json = output_paths(*vm, {"csv", "json"}, {q.scenario_file})["json"];
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
  app::write_sweep_outputs(q, s);
  if (!q.quiet) print_sweep_summary(stdout, s, q.csv);
  if (const auto why = app::sweep_infeasible(s, q.csv); !why.empty()) throw InfeasibleError(why);
  return 0;
}

}  // namespace csx::cli
