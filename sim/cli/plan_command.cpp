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
  po::options_description desc("plan options");
  add_command_options(desc, "plan");
  const auto pos = command_arguments("plan");
  const auto vm = parse_options(
      args,
      "csxsim plan MODEL --tokens T (--deadline D | --num-csx LIST) [--batch-size LIST] "
      "[--platform P1,P2] [--variant NAME:KEY=VALUE,...] [--csv OUT]",
      desc, &pos);
  if (!vm) return 0;
  auto q = app::read_plan_request(given_options(*vm, "plan"));
  auto out = output_paths(*vm, {"csv", "json"}, {q.model_path});
  q.csv = out["csv"];
  q.json = out["json"];
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
