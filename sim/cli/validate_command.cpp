// `csxsim validate`: every check of the reference file (README, "Accuracy"): measured runs of
// current and older releases, what the real `auto` chose, micro-batch sizes that compiled on
// real hardware, and which MBS real hardware preferred. --cross-validate hands the
// leave-one-out refit to tools/calibrate.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <map>

#include "app/job.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/results_output.hpp"
#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "common/whole_number.hpp"
#include "input/model_loader.hpp"
#include "input/platform_loader.hpp"
#include "input/yaml_block.hpp"
#include "model/memory_model.hpp"
#include "report/atomic_file.hpp"
#include "report/results_csv.hpp"

namespace csx::cli {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kLists{"measurements",       "input_bound_measurements",
                                      "older_measurements", "auto_decisions",
                                      "memory_facts",       "preferences"};
// The lists of measured runs (each run's name is unique across them).
const std::vector<std::string> kMeasuredLists{"measurements", "input_bound_measurements",
                                              "older_measurements"};
const std::vector<std::string> kEntryKeys{
    "name",          "model",   "platform",  "num_csx",
    "batch_size",    "seq_len", "mode",      "micro_batch_size",
    "samples_per_s", "release", "source",    "expected",
    "tried",         "pass",    "preferred", "reason",
    "unexplained"};

struct Entry {
  std::string name, model, platform, source, release, mode = "train";
  std::int64_t num_csx = 1, batch_size = 1;
  std::optional<std::int64_t> seq_len;
  batching::MbsSetting setting = batching::MbsAuto{};
  double samples_per_s = 0;  // measurements
  std::string expected;      // auto decisions: a size, or "smaller"
  std::vector<std::int64_t> tried;
  std::int64_t micro_batch_size = 0;  // memory facts
  std::int64_t preferred = 0;         // preferences
  std::string reason;                 // input-bound measurements: the evidence
  std::string unexplained;            // measured runs the model misses: the hypothesis
};

Entry read_entry(const io::Block& b, const std::string& list) {
  b.require_known_keys(kEntryKeys);
  Entry e;
  e.name = b.get_string("name");
  e.model = b.get_string("model");
  e.platform = b.get_string("platform");
  e.source = b.get_string("source");
  e.release = b.get_string_opt("release").value_or("");
  e.seq_len = b.get_int_opt("seq_len");
  if (b.has("unexplained")) {
    if (list != "measurements")
      throw InputError(fmt::format("{}: a hypothesis is recorded only for measurements",
                                   b.where("unexplained")));
    e.unexplained = b.get_string("unexplained");
  }
  if (list == "input_bound_measurements") {
    e.reason = b.get_string("reason");
    if (e.reason.empty())
      throw InputError(
          fmt::format("{}: empty; the evidence that the input bound the run", b.where("reason")));
  } else if (b.has("reason"))
    throw InputError(fmt::format("{}: a reason is recorded only for input_bound_measurements",
                                 b.where("reason")));
  if (list == "memory_facts") {
    e.mode = b.get_choice("pass", {"train", "eval"}, "train");
    e.micro_batch_size = b.get_int("micro_batch_size");
    return e;
  }
  e.num_csx = b.get_int("num_csx");
  e.batch_size = b.get_int("batch_size");
  if (b.has("micro_batch_size"))
    e.setting = io::parse_mbs_node(b.node()["micro_batch_size"], b.where("micro_batch_size"));
  if (list == "auto_decisions") {
    e.expected = b.get_string("expected");
    if (e.expected != "smaller") (void)csx::parse_whole(e.expected, b.where("expected"), 1);
    if (b.has_value("tried"))
      for (const auto& v : b.node()["tried"])
        e.tried.push_back(csx::parse_whole(v.Scalar(), b.where("tried"), 1));
  } else if (list == "preferences") {
    e.preferred = b.get_int("preferred");
  } else {
    e.samples_per_s = b.get_number("samples_per_s", 1e-9, 1e12);
  }
  return e;
}

// A model path of the reference file: relative to the repository, else to the file.
std::string model_path(const Entry& e, const std::string& reference) {
  const std::string path = (fs::path(data_dir()) / e.model).string();
  if (fs::exists(path)) return path;
  return (fs::path(reference).parent_path() / e.model).string();
}

std::vector<Entry> read_list(const io::Block& root, const std::string& key,
                             const std::string& reference) {
  std::vector<Entry> out;
  if (!root.has_value(key)) return out;
  const YAML::Node list = root.node()[key];
  if (!list.IsSequence())
    throw InputError(fmt::format("{}: expected a list of entries", root.where(key)));
  for (std::size_t i = 0; i < list.size(); ++i) {
    const io::Block b(root.file(), fmt::format("{}[{}]", key, i), list[i]);
    out.push_back(read_entry(b, key));
    for (std::size_t j = 0; j + 1 < out.size(); ++j)
      if (out[j].name == out.back().name)
        throw InputError(fmt::format("{} = '{}': a second entry of that name in {}",
                                     b.where("name"), out.back().name, key));
    // Models under models/ must exist; Model Zoo files elsewhere may be absent (skipped).
    const auto path = model_path(out.back(), reference);
    if (!fs::exists(path) && out.back().model.rfind("../", 0) != 0)
      throw InputError(
          fmt::format("{} = '{}': no such model file", b.where("model"), out.back().model));
  }
  return out;
}

// The entry's model, at its seq_len.
model::ModelSpec entry_model(const Entry& e, const std::string& reference) {
  return model::load_model(model_path(e, reference), e.seq_len);
}

// Runs one entry (its model `spec`) as `csxsim run` would, with `setting` (explore for
// preferences).
app::PassResult simulate_entry(const Entry& e, const model::ModelSpec& spec,
                               const std::string& reference, const app::Overrides& base,
                               const batching::MbsSetting& setting, bool compile_only = false) {
  io::Scenario s;
  s.file = reference;
  s.model = spec;
  s.platform = e.platform;
  s.mode = e.mode == "eval" ? io::Mode::kEval : io::Mode::kTrain;
  app::Overrides o = base;
  o.num_csx = e.num_csx;
  o.batch_size = e.batch_size;
  o.micro_batch_size = setting;
  o.compile_only = compile_only;
  o.refuse_other_platform_overrides = false;  // those are for other entries
  const app::Job job = app::make_job(s, o, data_dir());
  auto results = app::run_job(job);
  if (!results.front().outcome.chosen)
    throw InfeasibleError(fmt::format("{}: entry {}: no micro_batch_size fits", reference, e.name));
  return results.front();
}

struct Errors {
  double sum_abs = 0, worst = 0;
  std::string worst_name;
  std::size_t n = 0;
  void add(double err, const std::string& name) {
    sum_abs += std::fabs(err);
    ++n;
    if (std::fabs(err) >= std::fabs(worst)) {
      worst = err;
      worst_name = name;
    }
  }
};

// Simulates measured runs; prints a table and returns CSV rows. For input-bound runs the
// simulated (compute-bound) rate must be at least the measured one; `inconsistent` counts those
// that are not.
std::string check_measurements(const std::vector<Entry>& entries, const std::string& group,
                               const std::string& reference, const app::Overrides& base,
                               int* inconsistent = nullptr) {
  if (entries.empty()) return "";
  fmt::print("{}\n{:<18} {:<5} {:>3} {:>6} {:>5} {:>11} {:>12} {:>8}  {:<16} {}\n", group, "entry",
             "plat", "N", "batch", "MBS", "measured/s", "simulated/s", "error", "release", "bound");
  std::string rows;
  Errors errs;
  for (const auto& e : entries) {
    const auto spec = entry_model(e, reference);
    const auto r = simulate_entry(e, spec, reference, base, e.setting);
    const auto& c = r.outcome.rows[*r.outcome.chosen];
    const double err = 100 * (c.samples_per_s / e.samples_per_s - 1);
    errs.add(err, e.name);
    fmt::print("{:<18} {:<5} {:>3} {:>6} {:>5} {:>11.2f} {:>12.2f} {:>+7.1f}%  {:<16} {}\n", e.name,
               e.platform, e.num_csx, e.batch_size, c.micro_batch_size, e.samples_per_s,
               c.samples_per_s, err, e.release, c.sim.bound);
    if (!e.unexplained.empty()) fmt::print("  not explained by the model: {}\n", e.unexplained);
    if (inconsistent) {
      const bool holds = c.samples_per_s >= e.samples_per_s;
      *inconsistent += holds ? 0 : 1;
      fmt::print("  {}: {}\n",
                 holds ? "consistent (simulated compute rate >= measured)"
                       : "INCONSISTENT: the simulated compute rate is below the "
                         "measured input-bound rate",
                 e.reason);
    }
    rows += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", io::csv_field(e.name),
                        io::csv_field(group.substr(0, group.find(' '))), io::csv_field(e.model),
                        io::csv_field(spec.name), e.platform, e.num_csx, e.batch_size,
                        c.micro_batch_size, io::csv_number(e.samples_per_s),
                        io::csv_number(c.samples_per_s), io::csv_number(err),
                        io::csv_field(c.sim.bound), io::csv_field(e.release));
  }
  if (inconsistent)
    fmt::print(
        "not in the MAPE: the measured rates are the input pipeline's, which csxsim does "
        "not model\n\n");
  else
    fmt::print("MAPE {:.1f}% over {} entries; largest error {:+.1f}% ({})\n\n",
               errs.sum_abs / static_cast<double>(errs.n), errs.n, errs.worst, errs.worst_name);
  return rows;
}

// What the real `auto` chose: returns the number of mismatches.
int check_decisions(const std::vector<Entry>& entries, const std::string& reference,
                    const app::Overrides& base) {
  int mismatches = 0;
  for (const auto& e : entries) {
    const auto r =
        simulate_entry(e, entry_model(e, reference), reference, base, batching::MbsAuto{});
    const auto& c = r.outcome.rows[*r.outcome.chosen];
    const std::int64_t P = batching::split_batch(e.batch_size, e.num_csx).per_system_batch_size;
    std::vector<std::int64_t> evaluated;
    for (const auto& row : r.outcome.rows) evaluated.push_back(row.micro_batch_size);
    const bool match = e.expected == "smaller" ? c.micro_batch_size < P
                                               : std::to_string(c.micro_batch_size) == e.expected;
    mismatches += match ? 0 : 1;
    fmt::print(
        "auto decision {}: {} (expected {}, simulated {} of per-system batch {}; evaluated "
        "{}; the real stack tried {})\n  {}\n",
        e.name, match ? "matches" : "DOES NOT MATCH", e.expected, c.micro_batch_size, P,
        fmt::join(evaluated, ", "), fmt::join(e.tried, ", "), r.outcome.decision);
  }
  return mismatches;
}

// Micro-batch sizes that compiled must fit: returns the number that do not.
int check_memory(const std::vector<Entry>& facts, const std::string& reference,
                 const app::Overrides& base) {
  int failed = 0, skipped = 0, fitted = 0;
  for (const auto& e : facts) {
    const std::string path = model_path(e, reference);
    if (!fs::exists(path)) {
      ++skipped;
      continue;
    }
    auto platform = platform::load_platform(e.platform, data_dir());
    platform::apply_overrides(platform, base.platform_overrides, false);
    const auto costs = model::layer_costs(model::load_model(path, e.seq_len));
    const auto m =
        model::on_chip_memory(costs, platform, e.micro_batch_size,
                              e.mode == "eval" ? model::Pass::kEval : model::Pass::kTrain);
    if (m.fits) {
      ++fitted;
      fmt::print("memory fact {}: fits on {} (headroom {:.2f} GB; {})\n", e.name, e.platform,
                 std::max(0.0, m.headroom_bytes) / 1e9, m.activation_plan);
    } else {
      ++failed;
      fmt::print("memory fact {}: DOES NOT FIT on {}: {}\n", e.name, e.platform, m.reason);
    }
  }
  if (!facts.empty())
    fmt::print("memory facts: {} of {} fit{}\n\n", fitted, fitted + failed,
               skipped ? fmt::format(" ({} skipped: model file absent)", skipped) : "");
  return failed;
}

// Where the preferred MBS ranks among all candidates (explore, compile-only).
void check_preferences(const std::vector<Entry>& entries, const std::string& reference,
                       const app::Overrides& base) {
  for (const auto& e : entries) {
    const auto r =
        simulate_entry(e, entry_model(e, reference), reference, base, batching::MbsExplore{}, true);
    std::vector<const search::CandidateResult*> sorted;
    for (const auto& row : r.outcome.rows)
      if (row.simulated) sorted.push_back(&row);
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
      return a->sim.step_time_s < b->sim.step_time_s;
    });
    if (std::none_of(sorted.begin(), sorted.end(),
                     [&](const auto* c) { return c->micro_batch_size == e.preferred; }))
      fmt::print("preference {}: MBS {} is not a fitting candidate\n", e.name, e.preferred);
    for (std::size_t i = 0; i < sorted.size(); ++i)
      if (sorted[i]->micro_batch_size == e.preferred)
        fmt::print("preference {}: MBS {} ranks {} of {} ({:.1f}% slower than the fastest, {})\n",
                   e.name, e.preferred, i + 1, sorted.size(),
                   100 * (sorted[i]->sim.step_time_s / sorted[0]->sim.step_time_s - 1),
                   sorted[0]->micro_batch_size);
  }
}

// tools/calibrate --cross-validate (Debian's python3 with scipy), with this binary and file.
int cross_validate(const std::string& reference, const std::string& group) {
  const std::string tool = (fs::path(data_dir()) / "tools" / "calibrate").string();
  std::error_code ec;
  const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  std::vector<std::string> argv{tool, "--cross-validate", "--group", group, "--csxsim",
                                self, "--reference",      reference};
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execv(tool.c_str(), cargv.data());
    std::_Exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
    throw InputError(
        fmt::format("{} --cross-validate refused the reference (its message "
                    "above)",
                    tool));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(fmt::format("{} --cross-validate failed (status {})", tool,
                                         WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  return 0;
}

// The reference file's lists, filtered by --only, --only-platform and --measurements-only;
// refuses a selection with no entry and an override for a platform no entry runs on.
std::map<std::string, std::vector<Entry>> read_reference(const std::string& reference,
                                                         const po::variables_map& vm,
                                                         const app::Overrides& base) {
  const io::Block root(reference, "", io::load_yaml_file(reference));
  root.require_known_keys(kLists);
  std::map<std::string, std::vector<Entry>> lists;
  for (const auto& key : kLists) lists[key] = read_list(root, key, reference);
  std::map<std::string, std::string> measured;  // a measured run's name -> its list
  for (const auto& key : kMeasuredLists)
    for (const auto& e : lists[key])
      if (const auto [it, fresh] = measured.emplace(e.name, key); !fresh)
        throw InputError(fmt::format("{}: measured run '{}' is in {} and in {}; a name is one run",
                                     reference, e.name, it->second, key));
  const bool only_measured = vm.count("measurements-only") || vm.count("only");
  if (only_measured)
    for (const auto& key : {"auto_decisions", "memory_facts", "preferences"}) lists[key].clear();
  if (vm.count("only")) {
    const auto names = "," + vm["only"].as<std::string>() + ",";
    std::vector<std::string> known;
    for (const auto& key : kMeasuredLists)
      for (const auto& e : lists[key]) known.push_back(e.name);
    for (std::size_t a = 1, b = 0; a < names.size(); a = b + 1) {
      b = names.find(',', a);
      const auto name = names.substr(a, b - a);
      if (!name.empty() && std::find(known.begin(), known.end(), name) == known.end())
        throw InputError(fmt::format("--only {}: no measured run named '{}'{}",
                                     vm["only"].as<std::string>(), name,
                                     did_you_mean(name, known)));
    }
    for (const auto& key : kMeasuredLists)
      std::erase_if(lists[key], [&](const Entry& e) {
        return names.find("," + e.name + ",") == std::string::npos;
      });
  }
  if (vm.count("only-platform")) {
    const auto only = vm["only-platform"].as<std::string>();
    for (auto& [key, list] : lists)
      std::erase_if(list, [&](const Entry& e) { return e.platform != only; });
  }
  std::size_t total = 0;
  for (const auto& [key, list] : lists) total += list.size();
  if (total == 0)
    throw InputError(
        fmt::format("{}: no entries to validate{}", reference,
                    vm.count("only-platform")
                        ? fmt::format(" for platform '{}'", vm["only-platform"].as<std::string>())
                        : std::string()));
  for (const auto& [key, value] : base.platform_overrides) {
    const auto colon = key.find(':');
    if (colon == std::string::npos) continue;
    const std::string p = key.substr(0, colon);
    bool used = false;
    for (const auto& [k, list] : lists)
      for (const auto& e : list) used = used || e.platform == p;
    if (!used)
      throw InputError(
          fmt::format("--platform-override {}={}: no selected entry runs on platform "
                      "'{}'{}",
                      key, value, p,
                      p == "cs2" || p == "cs3" ? std::string() : did_you_mean(p, {"cs2", "cs3"})));
  }
  return lists;
}

// What --json records as the inputs of a validation.
nlohmann::ordered_json validate_inputs(const std::string& reference, const po::variables_map& vm,
                                       const app::Overrides& base) {
  nlohmann::ordered_json j;
  j["command"] = "validate";
  j["reference"] = reference;
  auto& po = j["platform_overrides"] = nlohmann::ordered_json::array();
  for (const auto& [key, value] : base.platform_overrides) po.push_back(key + "=" + value);
  const auto text_or_null = [&](const char* flag) {
    return vm.count(flag) ? nlohmann::ordered_json(vm[flag].as<std::string>())
                          : nlohmann::ordered_json(nullptr);
  };
  j["only_platform"] = text_or_null("only-platform");
  j["only"] = text_or_null("only");
  j["measurements_only"] = vm.count("measurements-only") > 0;
  return j;
}

}  // namespace

int validate_command(const Args& args) {
  po::options_description desc("validate options");
  std::string reference =
      (fs::path(data_dir()) / "platforms/calibration/measurements.yaml").string();
  // clang-format off
  desc.add_options()
      ("reference", po::value(&reference), "reference file (default platforms/calibration/measurements.yaml)")
      ("platform-override", po::value<std::vector<std::string>>()->composing(),
       "[PLATFORM:]KEY=VALUE, e.g. cs2:calibration.step_overhead_s=0.1 (repeatable)")
      ("csv", po::value<std::string>(), "write one row per measured run to this CSV file")
      ("json", po::value<std::string>(), "write the CSV's records, units and inputs as JSON")
      ("only-platform", po::value<std::string>(), "check only the entries of this platform")
      ("only", po::value<std::string>(), "measured runs only, these names (comma-separated)")
      ("measurements-only", "skip the auto decisions, memory facts and preferences")
      ("cross-validate", "refit with each group of current-release runs left out and predict "
                         "them (tools/calibrate, scipy)")
      ("group", po::value<std::string>(), "with --cross-validate: what is left out together: "
                                          "model (default; every run of one model config), "
                                          "family (one Model Zoo family) or run");
  // clang-format on
  const auto vm = parse_options(
      args,
      "csxsim validate [--reference FILE] [--platform-override KEY=VALUE ...] [--csv FILE] "
      "[--cross-validate [--group model|family|run]]",
      desc);
  if (!vm) return 0;
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
    // The file is checked here (exit 2 naming what is wrong) before the refit starts.
    (void)read_reference(reference, *vm, app::Overrides{});
    return cross_validate(fs::absolute(reference).string(), group);
  }
  auto out = output_paths(*vm, {"csv", "json"}, {reference});
  const std::string &csv = out["csv"], &json = out["json"];
  const bool want_csv = !csv.empty();
  app::Overrides base;
  if (vm->count("platform-override"))
    for (const auto& kv : (*vm)["platform-override"].as<std::vector<std::string>>()) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos)
        throw InputError(fmt::format("--platform-override {}: expected KEY=VALUE", kv));
      base.platform_overrides.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
  auto lists = read_reference(reference, *vm, base);
  // Unknown override keys fail here, before anything is printed.
  for (const auto& name : {"cs2", "cs3"}) {
    auto p = platform::load_platform(name, data_dir());
    platform::apply_overrides(p, base.platform_overrides, false);
  }
  if (!base.platform_overrides.empty()) {
    std::string list;
    for (const auto& [key, value] : base.platform_overrides)
      list += fmt::format("{}{}={}", list.empty() ? "" : ", ", key, value);
    fmt::print("platform overrides in effect: {}\n\n", list);
  }
  std::string text =
      "name,group,model,family,platform,num_csx,batch_size,micro_batch_size,measured_samples_per_s,"
      "simulated_samples_per_s,error_pct,bound,release\n";
  text += check_measurements(lists["measurements"], "current releases (fitted; in-sample error)",
                             reference, base);
  int input_inconsistent = 0;
  text += check_measurements(lists["input_bound_measurements"],
                             "input-bound runs (not fitted; the simulated compute rate must be at "
                             "least the measured one)",
                             reference, base, &input_inconsistent);
  text += check_measurements(lists["older_measurements"], "older releases (not fitted)", reference,
                             base);
  const int mismatches = check_decisions(lists["auto_decisions"], reference, base);
  if (!lists["auto_decisions"].empty())
    fmt::print("auto decisions: {} of {} match\n\n", lists["auto_decisions"].size() - mismatches,
               lists["auto_decisions"].size());
  const int unfit = check_memory(lists["memory_facts"], reference, base);
  check_preferences(lists["preferences"], reference, base);
  io::OutputFiles files;
  if (want_csv) files.stage(csv, text);
  if (!json.empty()) stage_results_json(files, json, validate_inputs(reference, *vm, base), text);
  files.commit();
  const int failed = mismatches + unfit + input_inconsistent;
  if (failed > 0) {
    fmt::print(stderr, "csxsim validate: {} check{} failed\n", failed, failed == 1 ? "" : "s");
    return 1;
  }
  return 0;
}

}  // namespace csx::cli
