// `csxsim run SCENARIO`: options, app::execute_run, the table, the output files.
#include <cstdio>

#include "app/run_request.hpp"
#include "cli/commands.hpp"
#include "cli/option_descriptions.hpp"
#include "cli/output_flags.hpp"
#include "cli/run_report.hpp"
#include "common/errors.hpp"

namespace csx::cli {

int run_command(const Args& args) {
  const auto vm = parse_command(args, "run");
  if (!vm) return 0;
  const auto q = app::read_run_request(given_options(*vm, "run"));
  check_output_flags(*vm, {"csv", "trace", "json"}, {q.scenario_file});
  const auto locks = lock_output_flags(*vm, {"csv", "trace", "json"});
  const auto run = app::execute_run(q);
  // With --csv - or --json -, standard output carries the data alone.
  if (vm->count("quiet") == 0 && !data_on_stdout(*vm)) print_run(stdout, run);
  app::write_run_outputs(q, run);
  if (const auto why = app::run_infeasible(q, run); !why.empty()) throw InfeasibleError(why);
  return 0;
}

}  // namespace csx::cli
