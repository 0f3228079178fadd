// `csxsim merge A.csv B.csv ... -o ALL.csv`: joins sweep shards (and run or plan CSVs of one
// model) into the CSV an unsharded sweep writes; refuses a set of shards with one missing.
#include <memory>
#include <vector>

#include "app/results_output.hpp"
#include "app/sweep_merge.hpp"
#include "cli/commands.hpp"
#include "cli/option_descriptions.hpp"
#include "common/output_lock.hpp"
#include "report/atomic_file.hpp"

namespace csx::cli {

int merge_command(const Args& args) {
  const auto vm = parse_command(args, "merge");
  if (!vm) return 0;
  const auto given = given_options(*vm, "merge");
  const auto inputs = given.texts("inputs");
  const auto output = *given.text("output");
  // -o is required: "" is a mistake here, not an output left out; - is standard output.
  if (output != io::kStandardOutput) app::check_output(output, "-o", inputs);
  // As run and sweep do: no other csxsim writes the file meanwhile.
  const auto lock =
      output == io::kStandardOutput ? nullptr : std::make_unique<OutputLock>(output, "-o");
  const auto table = app::merge_results(inputs);
  io::OutputFiles files;
  files.stage(output, table.render());
  files.commit();
  return 0;
}

}  // namespace csx::cli
