// validate's checks: the reference's entries, each simulated or checked as `csxsim run` would.
#include "app/validation.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "common/whole_number.hpp"
#include "input/calibration_counts.hpp"
#include "input/model_loader.hpp"
#include "input/platform_loader.hpp"
#include "input/scenario.hpp"
#include "input/yaml_block.hpp"

namespace csx::app {
namespace {

namespace fs = std::filesystem;

// The lists of measured runs (each run's name is unique across them).
const std::vector<std::string> kMeasuredLists{"measurements", "input_bound_measurements",
                                              "older_measurements"};
const std::vector<std::string> kEntryKeys{
    "name",          "model",   "platform",  "num_csx",
    "batch_size",    "seq_len", "mode",      "micro_batch_size",
    "samples_per_s", "release", "source",    "expected",
    "tried",         "pass",    "preferred", "reason",
    "unexplained"};

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

std::vector<Entry> read_list(const io::Block& root, const std::string& key,
                             const ValidationSetup& setup) {
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
    const auto path = model_path(out.back(), setup);
    if (!fs::exists(path) && out.back().model.rfind("../", 0) != 0)
      throw InputError(
          fmt::format("{} = '{}': no such model file", b.where("model"), out.back().model));
  }
  return out;
}

// The entry's model, at its seq_len.
model::ModelSpec entry_model(const Entry& e, const ValidationSetup& setup) {
  return model::load_model(model_path(e, setup), e.seq_len);
}

// One entry (its model `spec`) as `csxsim run` would make its job, with `setting` (explore for
// preferences). `loaders`: the model file's dataloaders (data processors, input counts), for a
// run whose input workers are simulated; null leaves the input out.
Job entry_job(const Entry& e, const model::ModelSpec& spec, const ValidationSetup& setup,
              const batching::MbsSetting& setting, bool compile_only = false,
              const io::Scenario* loaders = nullptr) {
  io::Scenario s;
  if (loaders) {
    s.train_data_processor = loaders->train_data_processor;
    s.eval_data_processor = loaders->eval_data_processor;
    s.input_workers_per_csx = loaders->input_workers_per_csx;
    s.input_processes_per_worker = loaders->input_processes_per_worker;
    s.input_eval_processes_per_worker = loaders->input_eval_processes_per_worker;
  }
  s.file = setup.reference;
  s.model = spec;
  s.platform = e.platform;
  s.mode = e.mode == "eval" ? io::Mode::kEval : io::Mode::kTrain;
  Overrides o = setup.base;
  o.num_csx = e.num_csx;
  o.batch_size = e.batch_size;
  o.num_csx_where = o.batch_size_where = "";  // `named` names the entry
  o.micro_batch_size = setting;
  o.compile_only = compile_only;
  o.refuse_other_platform_overrides = false;  // those are for other entries
  // The entry's values reach make_job as run's flags would; its errors name the entry.
  const auto named = [&](const InputError& err) {
    return fmt::format("{}: entry {} (num_csx {}, batch_size {}, platform {}): {}", setup.reference,
                       e.name, e.num_csx, e.batch_size, e.platform, err.what());
  };
  try {
    return make_job(s, o, setup.data_dir);
  } catch (const RuleError& err) {
    throw RuleError(named(err));
  } catch (const InputError& err) {
    throw InputError(named(err));
  }
}

// Simulates an entry's job; its first pass's result.
PassResult run_entry(const Entry& e, const ValidationSetup& setup, const Job& job) {
  auto results = run_job(job);
  if (!results.front().outcome.chosen)
    throw InfeasibleError(
        fmt::format("{}: entry {}: no micro_batch_size fits", setup.reference, e.name));
  return results.front();
}

PassResult simulate_entry(const Entry& e, const model::ModelSpec& spec,
                          const ValidationSetup& setup, const batching::MbsSetting& setting,
                          bool compile_only = false) {
  return run_entry(e, setup, entry_job(e, spec, setup, setting, compile_only));
}

}  // namespace

std::string model_path(const Entry& e, const ValidationSetup& setup) {
  const std::string path = (fs::path(setup.data_dir) / e.model).string();
  if (fs::exists(path)) return path;
  return (fs::path(setup.reference).parent_path() / e.model).string();
}

ReferenceLists read_reference(const ValidationSetup& setup, const Selection& select) {
  const std::string& reference = setup.reference;
  const io::Block root(reference, "", io::load_yaml_file(reference));
  root.require_known_keys(io::kReferenceLists);
  ReferenceLists lists;
  for (const auto& key : io::kReferenceLists) lists[key] = read_list(root, key, setup);
  std::map<std::string, std::string> measured;  // a measured run's name -> its list
  for (const auto& key : kMeasuredLists)
    for (const auto& e : lists[key])
      if (const auto [it, fresh] = measured.emplace(e.name, key); !fresh)
        throw InputError(fmt::format("{}: measured run '{}' is in {} and in {}; a name is one run",
                                     reference, e.name, it->second, key));
  const bool only_measured = select.measurements_only || select.only;
  if (only_measured)
    for (const auto& key : {"auto_decisions", "memory_facts", "preferences"}) lists[key].clear();
  if (select.only) {
    const auto names = "," + *select.only + ",";
    std::vector<std::string> known;
    for (const auto& key : kMeasuredLists)
      for (const auto& e : lists[key]) known.push_back(e.name);
    for (std::size_t a = 1, b = 0; a < names.size(); a = b + 1) {
      b = names.find(',', a);
      const auto name = names.substr(a, b - a);
      if (!name.empty() && std::find(known.begin(), known.end(), name) == known.end())
        throw InputError(fmt::format("--only {}: no measured run named '{}'{}", *select.only, name,
                                     did_you_mean(name, known)));
    }
    for (const auto& key : kMeasuredLists)
      std::erase_if(lists[key], [&](const Entry& e) {
        return names.find("," + e.name + ",") == std::string::npos;
      });
  }
  std::vector<std::string> platforms;  // the platforms that have entries, for a did-you-mean
  for (const auto& [key, list] : lists)
    for (const auto& e : list)
      if (std::find(platforms.begin(), platforms.end(), e.platform) == platforms.end())
        platforms.push_back(e.platform);
  if (select.only_platform) {
    const auto& only = *select.only_platform;
    for (auto& [key, list] : lists)
      std::erase_if(list, [&](const Entry& e) { return e.platform != only; });
  }
  std::size_t total = 0;
  for (const auto& [key, list] : lists) total += list.size();
  if (total == 0) {
    throw InputError(fmt::format("{}: no entries to validate{}", reference,
                                 select.only_platform
                                     ? fmt::format(" for platform '{}'{}", *select.only_platform,
                                                   did_you_mean(*select.only_platform, platforms))
                                     : std::string()));
  }
  for (const auto& [key, value] : setup.base.platform_overrides) {
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

void ErrorSummary::add(double error_pct, const std::string& name) {
  sum_abs += std::fabs(error_pct);
  ++n;
  if (std::fabs(error_pct) >= std::fabs(worst)) {
    worst = error_pct;
    worst_name = name;
  }
}

MeasurementCheck check_measurement(const Entry& e, const ValidationSetup& setup, bool input_fed) {
  const auto spec = entry_model(e, setup);
  Job compute = entry_job(e, spec, setup, e.setting);
  compute.chosen_only = true;  // a measured run is checked on its chosen row only
  const auto r = run_entry(e, setup, compute);
  MeasurementCheck check;
  check.family = spec.name;
  check.chosen = r.outcome.rows[*r.outcome.chosen];
  check.seq_len = spec.seq_len;
  check.error_pct = 100 * (check.chosen.samples_per_s / e.samples_per_s - 1);
  check.at_least_measured = check.chosen.samples_per_s >= e.samples_per_s;
  if (input_fed) {
    const auto loaders = io::load_scenario(model_path(e, setup), setup.data_dir, e.seq_len);
    const Job job = entry_job(e, spec, setup, e.setting, false, &loaders);
    check.fed_rate_per_process = job.passes.front().input_samples_per_s;
    if (check.fed_rate_per_process > 0) {  // else nothing to simulate again
      const auto fed = run_entry(e, setup, job);
      check.fed = fed.outcome.rows[*fed.outcome.chosen];
      check.fed_error_pct = 100 * (check.fed->samples_per_s / e.samples_per_s - 1);
    }
  }
  return check;
}

DecisionCheck check_decision(const Entry& e, const ValidationSetup& setup) {
  const auto r = simulate_entry(e, entry_model(e, setup), setup, batching::MbsAuto{});
  const auto& c = r.outcome.rows[*r.outcome.chosen];
  DecisionCheck check;
  check.chosen = c.micro_batch_size;
  check.per_system_batch = batching::split_batch(e.batch_size, e.num_csx).per_system_batch_size;
  for (const auto& row : r.outcome.rows) check.evaluated.push_back(row.micro_batch_size);
  check.decision = r.outcome.decision;
  check.matches = e.expected == "smaller" ? check.chosen < check.per_system_batch
                                          : std::to_string(check.chosen) == e.expected;
  return check;
}

MemoryCheck check_memory_fact(const Entry& e, const ValidationSetup& setup) {
  const std::string path = model_path(e, setup);
  if (!fs::exists(path)) return {true, {}};
  auto platform = platform::load_platform(e.platform, setup.data_dir);
  platform::apply_overrides(platform, setup.base.platform_overrides, false);
  const auto costs = model::layer_costs(model::load_model(path, e.seq_len));
  return {false,
          model::on_chip_memory(costs, platform, e.micro_batch_size,
                                e.mode == "eval" ? model::Pass::kEval : model::Pass::kTrain)};
}

PreferenceCheck check_preference(const Entry& e, const ValidationSetup& setup) {
  const auto r = simulate_entry(e, entry_model(e, setup), setup, batching::MbsExplore{}, true);
  std::vector<const search::CandidateResult*> sorted;
  for (const auto& row : r.outcome.rows)
    if (row.simulated) sorted.push_back(&row);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return a->sim.step_time_s < b->sim.step_time_s;
  });
  PreferenceCheck check;
  check.candidates = sorted.size();
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i]->micro_batch_size == e.preferred && !check.rank) {
      check.rank = i + 1;
      check.slower_pct = 100 * (sorted[i]->sim.step_time_s / sorted[0]->sim.step_time_s - 1);
      check.fastest = sorted[0]->micro_batch_size;
    }
  return check;
}

}  // namespace csx::app
