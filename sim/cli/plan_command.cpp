// `csxsim plan MODEL --tokens T (--deadline D | --num-csx LIST)`: options, app::execute_plan,
// the table and the answers.
#include "app/plan_request.hpp"
#include "cli/commands.hpp"
#include "cli/option_descriptions.hpp"
#include "cli/output_flags.hpp"
#include "cli/plan_report.hpp"
#include "common/errors.hpp"

namespace csx::cli {

int plan_command(const Args& args) {
  const auto vm = parse_command(args, "plan");
  if (!vm) return 0;
  const auto q = app::read_plan_request(given_options(*vm, "plan"));
  check_output_flags(*vm, {"csv", "json"}, {q.model_path});
  const auto locks = lock_output_flags(*vm, {"csv", "json"});
  const auto plan = app::execute_plan(q);
  // With --csv - or --json -, standard output carries the data alone: no table, the answer on
  // standard error.
  const bool data_out = data_on_stdout(*vm);
  print_plan(vm->count("quiet") || data_out ? nullptr : stdout, data_out ? stderr : stdout, plan);
  app::write_plan_outputs(q, plan);
  if (const auto why = app::plan_infeasible(plan); !why.empty()) throw InfeasibleError(why);
  return 0;
}

}  // namespace csx::cli
