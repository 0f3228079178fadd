// The requests' fields from the options given, for the CLI and the Python module alike.
#include "cli/requests.hpp"

namespace csx::cli {

namespace {

// What run, sweep and plan share: the job options, --seq-len, --jobs and (sweep, plan)
// --variant.
template <typename Request>
void read_job_part(Request& q, const app::GivenOptions& given) {
  q.options = job_option_texts(given);
  q.seq_len = given.text("seq-len");
  q.jobs = given.text("jobs");
  if constexpr (requires { q.variants; }) q.variants = given.texts("variant");
}

}  // namespace

void read_given(RunRequest& q, const app::GivenOptions& given) {
  q.scenario_file = given.text("scenario").value_or("");
  read_job_part(q, given);
  q.csv = given.text("csv").value_or("");
  q.json = given.text("json").value_or("");
  q.trace = given.text("trace").value_or("");
  q.trace_systems = given.text("trace-systems");
  q.trace_max_events = given.text("trace-max-events");
}

void read_given(PlanRequest& q, const app::GivenOptions& given) {
  q.model = given.text("model").value_or("");
  read_job_part(q, given);
  q.deadline = given.text("deadline");
  q.max_num_csx = given.text("max-num-csx");
  q.csv = given.text("csv").value_or("");
  q.json = given.text("json").value_or("");
}

void read_given(SweepRequest& q, const app::GivenOptions& given) {
  q.scenario_file = given.text("scenario").value_or("");
  read_job_part(q, given);
  q.shard = given.text("shard");
  if (const auto csv = given.text("csv")) q.csv = *csv;
  q.json = given.text("json").value_or("");
  q.resume = given.has("resume");
  q.check_only = given.has("check-only");
  q.quiet = given.has("quiet");
}

void read_given(ValidateRequest& q, const app::GivenOptions& given) {
  q.reference = given.text("reference");
  q.platform_overrides = given.texts("platform-override");
  q.only = given.text("only");
  q.only_platform = given.text("only-platform");
  q.measurements_only = given.has("measurements-only");
  q.csv = given.text("csv").value_or("");
  q.json = given.text("json").value_or("");
}

}  // namespace csx::cli
