// `csxsim validate`: options, the report of cli/validation_report.hpp, the output files;
// --cross-validate runs the calibration's grouped cross-validation (cli/calibration_report.hpp).
#include <fmt/format.h>
#include <algorithm>
#include <optional>

#include "app/data_folder.hpp"
#include "app/validate_request.hpp"
#include "cli/calibration_report.hpp"
#include "cli/commands.hpp"
#include "cli/option_descriptions.hpp"
#include "cli/output_flags.hpp"
#include "cli/validation_report.hpp"
#include "common/did_you_mean.hpp"
#include "common/errors.hpp"

namespace csx::cli {
int validate_command(const Args& args) {
  const auto vm = parse_command(args, "validate");
  if (!vm) return 0;
  app::check_data_dir();  // a CSXSIM_DATA_DIR without platforms/ is named, not its missing files
  const auto given = given_options(*vm, "validate");
  if (vm->count("group") && !vm->count("cross-validate"))
    throw InputError("--group is an option of --cross-validate");
  if (vm->count("cross-validate")) {
    const std::string group = vm->count("group") ? (*vm)["group"].as<std::string>() : "model";
    const std::vector<std::string> groups{"model", "family", "run"};
    if (std::find(groups.begin(), groups.end(), group) == groups.end())
      throw InputError(fmt::format("--group {}: expected model, family or run{}", group,
                                   did_you_mean(group, groups)));
    for (const auto* other :
         {"platform-override", "csv", "json", "only-platform", "only", "measurements-only"})
      if (vm->count(other))
        throw InputError(
            fmt::format("--cross-validate takes only --reference, not --{} (the "
                        "refit varies the fitted parameters itself)",
                        other));
    const auto q = app::read_validate_request(given);
    // The file is checked here (exit 2 naming what is wrong) before the refit starts.
    (void)app::read_reference({q.reference, {}, app::data_dir()}, q.selection);
    app::CalibrateRequest c;
    c.reference = q.reference;
    c.cross_validate = true;
    c.group = group;
    c.parameters = app::calibration_parameters();
    return print_calibration(stdout, c, calibrate_with_status(c));
  }
  const auto q = app::read_validate_request(given);
  check_output_flags(*vm, {"csv", "json"}, {q.reference});
  const auto locks = lock_output_flags(*vm, {"csv", "json"});
  // With --csv - or --json -, standard output carries the data alone: the report goes nowhere.
  const auto v = app::execute_validate(q);
  if (!data_on_stdout(*vm)) print_validation(stdout, q, v);
  app::write_validate_outputs(q, v);
  if (v.failed > 0) {
    fmt::print(stderr, "csxsim validate: {} check{} failed\n", v.failed, v.failed == 1 ? "" : "s");
    return 1;
  }
  return 0;
}

}  // namespace csx::cli
