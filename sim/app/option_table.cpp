// The option table: every option once, then each command's options in --help order.
#include "app/option_table.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>

#include "common/did_you_mean.hpp"
#include "common/errors.hpp"

namespace csx::app {

namespace {

using V = ValueType;

// One option a row: flag, keyword, type, default and unit, then its help on a line of its own
// (however long), so that every row has the same layout.
// clang-format off
const std::vector<OptionSpec> kSpecs{
    // The commands' arguments.
    {"scenario", "scenario", V::kFile, "", "",
     "scenario, Model Zoo params file or models/ name (gpt3_xl)"},
    {"model", "model", V::kFile, "", "",
     "scenario, Model Zoo file or models/ name"},
    // What overrides a scenario (run, sweep, plan).
    {"num-csx", "num_csx", V::kCount, "the file's, else 1", "systems",
     "number of CS-X systems N"},
    {"batch-size", "batch_size", V::kCount, "the file's", "samples",
     "global batch size B (samples)"},
    {"micro-batch-size", "micro_batch_size", V::kText, "the file's, else auto", "samples",
     "auto | explore | none | INT | MIN:MAX"},
    {"platform", "platform", V::kText, "the file's", "",
     "cs2 | cs3 | platform file"},
    {"mode", "mode", V::kText, "the file's", "",
     "train | eval | train_and_eval"},
    {"compile-only", "compile_only", V::kSwitch, "", "",
     "compile-only mode (required by explore)"},
    {"steps", "steps", V::kCount, "the file's num_steps or max_steps", "steps",
     "training steps, for time to train"},
    {"tokens", "tokens", V::kAmount, "", "tokens",
     "token budget, for time to train: steps = ceil(tokens / (batch x seq_len)); e.g. 1e12, 300B"},
    {"sim-steps", "sim_steps", V::kWhole, "2", "steps",
     "steps to simulate (2 to 100, default 2)"},
    {"input-rate", "input_rate", V::kAmount, "the file's, else the platform's for its data processor, else not simulated", "samples/s",
     "samples/s one input dataloader process delivers; x num_workers x num_workers_per_csx feed each CS-X"},
    {"max-explore", "max_explore", V::kCount, "10000", "sizes",
     "explore tries at most this many sizes (default 10000); more is refused"},
    {"seq-len", "seq_len", V::kCount, "the model's", "tokens",
     "sequence length override (tokens)"},
    {"platform-override", "platform_override", V::kKeyValues, "", "",
     "[P:]KEY=VALUE, e.g. calibration.step_overhead_s=0.1; with P:, on platform P only (repeatable)"},
    {"variant", "variant", V::kVariants, "", "",
     "NAME:KEY=VALUE[,KEY=VALUE...]: also run each platform with these overrides (repeatable)"},
    // plan's question.
    {"deadline", "deadline", V::kDuration, "", "s, m or min, h, d, w",
     "time to train at most this: e.g. 7d, 36h; answers the smallest num_csx"},
    {"max-num-csx", "max_num_csx", V::kCount, "the platform's largest cluster", "systems",
     "largest num_csx the deadline search tries (default: the platform's largest cluster)"},
    // Outputs.
    {"csv", "csv", V::kFile, "", "",
     "write one row per candidate to this CSV file (- for standard output, then no table)"},
    {"json", "json", V::kFile, "", "",
     "write the CSV's records, units and inputs as JSON (- for standard output)"},
    {"trace", "trace", V::kFile, "", "",
     "write a Chrome trace-event JSON of the chosen candidate's simulated steps"},
    {"trace-systems", "trace_systems", V::kCountList, "", "system indices",
     "beyond 64 systems, CS-X systems shown besides csx-0 (LIST of indices)"},
    {"trace-max-events", "trace_max_events", V::kCount, "500000", "events",
     "refuse a trace of more events than this (default 500000, about 130 MB)"},
    {"jobs", "jobs", V::kCount, "one per CPU", "processes",
     "simulation processes at once (default: one per CPU; at most 2 are used)"},
    {"quiet", "quiet", V::kSwitch, "", "",
     "print nothing on stdout (errors and notices still go to stderr)"},
    // sweep's grid.
    {"shard", "shard", V::kText, "0/1", "",
     "I/N: run only points with index % N == I"},
    {"resume", "resume", V::kSwitch, "", "",
     "keep the finished points already in --csv and run the rest"},
    {"check-only", "check_only", V::kSwitch, "", "",
     "check the inputs, grid, shards and outputs; simulate and write nothing"},
    // validate.
    {"reference", "reference", V::kFile, "platforms/calibration/measurements.yaml", "",
     "reference file (default platforms/calibration/measurements.yaml)"},
    {"only-platform", "only_platform", V::kText, "", "",
     "check only the entries of this platform"},
    {"only", "only", V::kNames, "", "",
     "measured runs only, these names (comma-separated)"},
    {"measurements-only", "measurements_only", V::kSwitch, "", "",
     "skip the auto decisions, memory facts and preferences"},
    {"cross-validate", "cross_validate", V::kSwitch, "", "",
     "refit with each group of current-release runs left out and predict them (csxsim calibrate --cross-validate)"},
    {"group", "group", V::kText, "model", "",
     "with --cross-validate: what is left out together: model (default; every run of one model config), family (one Model Zoo family) or run"},
    // merge and platform.
    {"inputs", "inputs", V::kFiles, "", "",
     "sweep shards, run or plan CSVs"},
    {"output", "output", V::kFile, "", "",
     "merged CSV (- for standard output)"},
    {"platforms", "platforms", V::kFiles, "cs2 cs3", "",
     "cs2 | cs3 | platform files (default: cs2 cs3)"},
    {"keys", "keys", V::kSwitch, "", "",
     "list every key with its unit, bounds, meaning and each platform's value"},
    // calibrate.
    {"write", "write", V::kSwitch, "", "",
     "write the fit and prediction_log_sd into platforms/*.yaml"},
    {"check", "check", V::kSwitch, "", "",
     "exit 1 when platforms/*.yaml differ from a fresh fit"},
    {"free", "free", V::kRanges, "", "",
     "KEY:LOW:HIGH: also fit calibration.KEY within LOW-HIGH (repeatable; not with --write or --check)"},
    // columns.
    {"table", "table", V::kText, "results", "",
     "results (run, sweep, plan and merge; the default) or validate"},

};

// --platform of sweep and plan.
const OptionUse kPlatformList{.flag = "platform",
                              .help = "cs2 | cs3 | platform file, or a list of them: cs2,cs3",
                              .type = V::kPlatforms};

// What run and sweep take to override a scenario; sweep's lists are its grid.
std::vector<OptionUse> job_uses(bool grid) {
  std::vector<OptionUse> uses{
      {"num-csx"},
      {"batch-size"},
      {"micro-batch-size"},
      {"platform"},
      {"mode"},
      {"compile-only"},
      {"steps"},
      {"tokens"},
      {"sim-steps"},
      {"max-explore"},
      {"seq-len"},
      {"input-rate"},
      {"platform-override"},
  };
  if (grid) {
    uses[0] = {.flag = "num-csx", .help = "num_csx values (LIST: 1,2,4 or 1:64:x2)",
               .type = V::kCountList, .python_required = true};
    uses[1] = {.flag = "batch-size",
               .help = "global batch sizes (LIST of samples: 264,528 or 64:1024:x2)",
               .type = V::kCountList, .python_required = true};
    uses[3] = kPlatformList;
  }
  return uses;
}

// An option only the command line takes, with this command's help ("": the spec's).
OptionUse cli_only(std::string_view flag, std::string_view help = {}) {
  return {.flag = flag, .help = help, .surface = Surface::kCli};
}

std::vector<OptionUse> concat(std::vector<OptionUse> a, const std::vector<OptionUse>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::map<std::string_view, std::vector<OptionUse>>& uses_by_command() {
  static const std::map<std::string_view, std::vector<OptionUse>> table{
      {"run", concat(concat({{.flag = "scenario", .argument = true, .cli_required = true}},
                            job_uses(false)),
                     {
                         cli_only("csv"),
                         cli_only("json"),
                         {"trace"},
                         {"trace-systems"},
                         {"trace-max-events"},
                         {.flag = "jobs", .short_flag = 'j'},
                         {.flag = "quiet", .short_flag = 'q', .surface = Surface::kCli},
                     })},
      {"sweep",
       concat(concat({{.flag = "scenario", .argument = true, .cli_required = true}},
                     job_uses(true)),
              {
                  {"variant"},
                  {.flag = "csv",
                   .help = "output CSV (rows sorted by platform, num_csx, batch_size); - for "
                           "standard output, written at the end, with no summary and no --resume",
                   .cli_required = true},
                  cli_only("json"),
                  {.flag = "jobs", .help = "grid points simulated in parallel (default 1)",
                   .default_text = "1", .short_flag = 'j'},
                  {"shard"},
                  {"resume"},
                  cli_only("check-only"),
                  {.flag = "quiet", .help = "no progress bar and no summary", .short_flag = 'q',
                   .surface = Surface::kCli},
              })},
      {"plan",
       {
           {.flag = "model", .argument = true, .cli_required = true},
           {.flag = "tokens", .help = "token budget (required): e.g. 1e12, 300B",
            .python_required = true},
           {"deadline"},
           {.flag = "num-csx", .help = "cluster sizes to report the time to train of (list)",
            .type = V::kCountList, .default_text = ""},
           {"max-num-csx"},
           {.flag = "batch-size", .help = "global batch sizes (list; default: the file's)",
            .type = V::kCountList},
           {"micro-batch-size"},
           {"compile-only"},
           {"max-explore"},
           kPlatformList,
           {"seq-len"},
           {"input-rate"},
           {"platform-override"},
           cli_only("csv", "write every evaluated candidate to this CSV (- for standard output; "
                           "the answer then goes to standard error)"),
           cli_only("json"),
           {.flag = "jobs", .help = "simulation processes at once (default: one per CPU)",
            .short_flag = 'j'},
           {.flag = "quiet", .help = "print only the answer", .short_flag = 'q',
            .surface = Surface::kCli},
           {"variant"},
       }},
      {"validate",
       {
           {"reference"},
           {"platform-override"},
           cli_only("csv", "write one row per measured run to this CSV file (- for standard "
                           "output, then no report)"),
           cli_only("json"),
           {"only-platform"},
           {"only"},
           {"measurements-only"},
           cli_only("cross-validate"),
           cli_only("group"),
       }},
      {"candidates",
       {
           {.flag = "batch-size", .short_flag = 'b', .cli_required = true,
            .python_required = true},
           {.flag = "num-csx", .short_flag = 'n', .cli_required = true, .python_required = true},
           {.flag = "micro-batch-size",
            .help = "auto | explore | none | INT | MIN:MAX (default auto)", .default_text = "auto",
            .short_flag = 'm'},
           {.flag = "json", .help = "print one JSON object instead of text", .type = V::kSwitch,
            .surface = Surface::kCli},
       }},
      {"describe",
       {
           {.flag = "model", .help = "model or Model Zoo params file, or a models/ name",
            .argument = true, .cli_required = true},
           {.flag = "platform", .help = "cs2 | cs3 | platform file (default cs2)",
            .default_text = "cs2"},
           {"seq-len"},
           {.flag = "json", .help = "print one JSON object", .type = V::kSwitch,
            .surface = Surface::kCli},
       }},
      {"merge",
       {
           {.flag = "inputs", .surface = Surface::kCli, .argument = true, .cli_required = true},
           {.flag = "output", .short_flag = 'o', .surface = Surface::kCli, .cli_required = true},
       }},
      {"platform",
       {
           {.flag = "platforms", .surface = Surface::kCli, .argument = true},
           cli_only("keys"),
       }},
      {"calibrate",
       {
           cli_only("reference", "fit data (default platforms/calibration/measurements.yaml)"),
           cli_only("cross-validate", "leave each group out in turn, refit, and predict it"),
           cli_only("group", "with --cross-validate: what is left out together: model "
                             "(default), family or run"),
           cli_only("write"),
           cli_only("check"),
           cli_only("free"),
       }},
      {"columns",
       {
           {.flag = "table", .surface = Surface::kCli, .argument = true},
           {.flag = "json", .help = "print a JSON array of {name, unit, type}", .type = V::kSwitch,
            .surface = Surface::kCli},
       }},
  };
  return table;
}
// clang-format on

// A value type's name in the docs and its kind in Python.
struct TypeNames {
  ValueType type;
  std::string_view name, python_kind;
};

const TypeNames& type_names(ValueType type) {
  static const std::vector<TypeNames> table{
      {V::kSwitch, "switch", "switch"},
      {V::kText, "text", "text"},
      {V::kFile, "file", "text"},
      {V::kCount, "whole number >= 1", "text"},
      {V::kWhole, "whole number", "text"},
      {V::kCountList, "list of whole numbers", "list"},
      {V::kAmount, "amount (1e12, 300B)", "text"},
      {V::kDuration, "duration (7d, 36h)", "text"},
      {V::kPlatforms, "platforms (list)", "platforms"},
      {V::kNames, "names (list)", "names"},
      {V::kKeyValues, "KEY=VALUE, repeatable", "key_values"},
      {V::kRanges, "KEY:LOW:HIGH, repeatable", "text"},
      {V::kVariants, "NAME:KEY=VALUE,..., repeatable", "variants"},
      {V::kFiles, "files", "text"},
  };
  for (const auto& t : table)
    if (t.type == type) return t;
  throw std::logic_error("a value type of no name");
}

const OptionSpec& spec_of(std::string_view flag) {
  for (const auto& s : kSpecs)
    if (s.flag == flag) return s;
  throw std::logic_error(fmt::format("the option table has no --{}", flag));
}

}  // namespace

std::string_view type_name(ValueType type) {
  return type_names(type).name;
}

std::string_view python_kind(ValueType type) {
  return type_names(type).python_kind;
}

const std::vector<OptionSpec>& option_specs() {
  return kSpecs;
}

const std::vector<std::string_view>& option_commands() {
  static const std::vector<std::string_view> names{
      "run",        "sweep",    "plan",  "validate", "calibrate",
      "candidates", "describe", "merge", "platform", "columns"};
  return names;
}

std::vector<CommandOption> command_options(std::string_view command) {
  const auto& table = uses_by_command();
  const auto it = table.find(command);
  if (it == table.end())
    throw std::logic_error(fmt::format("the option table has no command {}", command));
  std::vector<CommandOption> out;
  for (const auto& u : it->second) {
    const auto& spec = spec_of(u.flag);
    const bool required = u.cli_required || u.python_required;
    out.push_back({&spec, u.type.value_or(spec.type), u.help.empty() ? spec.help : u.help,
                   required ? "" : u.default_text.value_or(spec.default_text), u.short_flag,
                   u.surface, u.argument, u.cli_required, u.python_required});
  }
  return out;
}

std::vector<std::string_view> commands_taking(std::string_view flag) {
  std::vector<std::string_view> out;
  for (const auto command : option_commands())
    for (const auto& o : command_options(command))
      if (o.spec->flag == flag) out.push_back(command);
  return out;
}

void GivenOptions::set(std::string flag, std::vector<std::string> values) {
  given_[std::move(flag)] = std::move(values);
}

bool GivenOptions::has(std::string_view flag) const {
  return given_.find(flag) != given_.end();
}

std::optional<std::string> GivenOptions::text(std::string_view flag) const {
  const auto it = given_.find(flag);
  if (it == given_.end() || it->second.empty()) return std::nullopt;
  return it->second.front();
}

std::vector<std::string> GivenOptions::texts(std::string_view flag) const {
  const auto it = given_.find(flag);
  return it == given_.end() ? std::vector<std::string>{} : it->second;
}

GivenOptions given_keywords(
    std::string_view command,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& keywords) {
  const auto options = command_options(command);
  std::vector<std::string> known;
  for (const auto& o : options)
    if (o.in_python() && !o.argument) known.emplace_back(o.spec->keyword);
  GivenOptions given;
  for (const auto& [keyword, values] : keywords) {
    const std::string_view name = keyword;  // clang before 16 cannot capture a binding
    const auto it = std::find_if(options.begin(), options.end(), [&](const CommandOption& o) {
      return o.in_python() && !o.argument && o.spec->keyword == name;
    });
    if (it == options.end())
      throw InputError(fmt::format("{}(): unrecognised keyword argument '{}'{}", command, keyword,
                                   did_you_mean(keyword, known)));
    given.set(std::string(it->spec->flag), values);
  }
  return given;
}

}  // namespace csx::app
