// Scenario files: Trainer layout (Release 2.4+), legacy layout (Release <= 2.3), and ours.
#include "input/scenario.hpp"
#include "common/whole_number.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <utility>

#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "common/named_path.hpp"
#include "input/model_loader.hpp"
#include "input/modelzoo_data.hpp"
#include "input/platform_loader.hpp"
#include "input/yaml_block.hpp"

namespace csx::io {
namespace {

// Any finite number: the key's own rule is checked after the read, with its own message.
constexpr std::pair<double, double> kAnyNumber{std::numeric_limits<double>::lowest(),
                                               std::numeric_limits<double>::max()};

const char* kMbsFlag = "csx.performance.micro_batch_size";

// The modes' names (in files, --mode and the CSV), in Mode's order.
const std::vector<std::string> kModeNames{"train", "eval", "train_and_eval"};

// Keys of these blocks in real Model Zoo files that csxsim does not need.
const std::vector<std::string> kDataloaderIgnored{"data_dir",
                                                  "data_processor",
                                                  "do_lower",
                                                  "image_size",
                                                  "masked_lm_prob",
                                                  "max_predictions_per_seq",
                                                  "max_sequence_length",
                                                  "num_classes",
                                                  "persistent_workers",
                                                  "prefetch_factor",
                                                  "shuffle",
                                                  "shuffle_seed",
                                                  "split",
                                                  "transforms",
                                                  "use_worker_cache",
                                                  "vocab_file",
                                                  "drop_last",
                                                  "mixed_precision",
                                                  "pad_last"};
const std::vector<std::string> kClusterIgnored{"max_wgt_servers", "mount_dirs", "python_paths",
                                               "num_act_servers"};
// Every runconfig key of the Release 2.3 and R_1.7.0 configs, and the cluster-access arguments
// of the Cerebras run scripts of Release 2.3.
const std::vector<std::string> kRunconfigIgnored{
    "checkpoint_path", "checkpoint_steps", "compile_crd_memory_gi",
    "disable_strict_checkpoint_loading", "enable_distributed", "eval_frequency", "eval_steps",
    "execute_crd_memory_gi", "load_checkpoint_states", "log_steps", "max_checkpoints", "model_dir",
    "num_act_servers", "num_epochs", "num_wgt_servers", "precision_opt_level",
    "save_initial_checkpoint", "seed", "transfer_processes", "validate_only", "python_paths",
    "mount_dirs", "job_labels", "credentials_path", "mgmt_address", "job_priority",
    "autoload_checkpoint",
    // TensorFlow estimator keys of R_1.7.0
    "cs_ip", "keep_checkpoint_max", "log_step_count_steps", "multireplica",
    "save_checkpoints_steps", "save_losses", "save_summary_steps", "show_debug_metrics",
    "tf_random_seed", "throttle_secs", "use_cs_grad_accum"};
const std::vector<std::string> kLoopIgnored{"eval_frequency", "eval_steps", "num_epochs",
                                            "steps_per_epoch", "grad_accum_steps"};
const std::vector<std::string> kSimulationKeys{"platform",         "mode",
                                               "compile_only",     "simulated_steps",
                                               "auto_min_speedup", "input_samples_per_s"};

// A count of the user's file that csxsim reads for the input pipeline: a whole number >= `min`,
// else a warning and the default (a Model Zoo key never refuses a file).
// At most 10^6 (processes or workers): more is taken for a typo.
std::optional<std::int64_t> input_count(const Block& b, const std::string& key, std::int64_t min,
                                        Scenario& s) {
  try {
    return b.get_int_opt(key, min, 1'000'000);
  } catch (const InputError& e) {
    s.warnings.push_back(fmt::format("{}; the input pipeline takes the default, 1", e.what()));
    if (s.input_count_problem.empty()) s.input_count_problem = e.what();
    return std::nullopt;
  }
}

// A dataloader's processes per input worker (num_workers, 0 for its main process) and its
// data_processor's name (a value that is not a name is left to the Model Zoo to refuse).
void read_dataloader_processes(const Block& loader, std::int64_t& processes, std::string& processor,
                               Scenario& s) {
  if (const auto n = input_count(loader, "num_workers", 0, s))
    processes = std::max<std::int64_t>(1, *n);
  const auto name = loader.node()["data_processor"];
  if (!name) return;  // absent: the val dataloader keeps the train one's
  processor.clear();
  if (name.IsNull()) return;
  if (!name.IsScalar()) {
    s.warnings.push_back(
        fmt::format("{}: not a data processor's name; its input is simulated only "
                    "at a given --input-rate",
                    loader.where("data_processor")));
    return;
  }
  processor = name.Scalar();
  // The one csxsim has a rate for, in another case: its input would go unsimulated without a
  // word. (Names a few letters away are other processors: ImageNet21KProcessor.)
  if (processor != kImageNetProcessor && lowercase(processor) == lowercase(kImageNetProcessor))
    s.warnings.push_back(fmt::format(
        "{} = '{}': not a data processor csxsim has an input rate for (did you mean '{}'?); its "
        "input is simulated only at a given --input-rate",
        loader.where("data_processor"), processor, kImageNetProcessor));
}

// The TensorFlow tree of the Model Zoo's R_1.7.0 layout: a `tf` folder above the file's
// `configs/` folder (transformers/tf/gpt3/configs/, vision/tf/unet/configs/, fc_mnist/tf/configs/).
// Its batch_size is per system: the TF input functions of that tag
// (modelzoo/common/tf/input/TfRecordsProcessor.py, utils.py transform_dataset) batch each
// system's own input pipeline by it (docs/modelzoo.md#model-zoo-files).
bool tensorflow_layout(const std::string& file) {
  const auto path = std::filesystem::absolute(file).lexically_normal();
  bool tf = false;
  for (const auto& part : path.parent_path()) {
    if (part == "tf") tf = true;
    if (part == "configs" && tf) return true;
  }
  return false;
}

// A loop's (or the legacy runconfig's) training length: num_steps, which takes precedence, else
// max_steps (the Model Zoo's TrainingLoop, Release 2.10).
std::optional<std::int64_t> training_steps(const Block& b) {
  if (auto n = b.get_int_opt("num_steps")) return n;
  return b.get_int_opt("max_steps");
}

// A dataloader that may be written as a list of dataloaders (take the first).
std::optional<Block> dataloader(const Block& parent, const std::string& key) {
  if (!parent.has_value(key)) return std::nullopt;
  YAML::Node n = parent.node()[key];
  if (n.IsSequence()) {
    if (n.size() == 0) return std::nullopt;
    n = n[0];
  }
  if (!n.IsMap())
    throw InputError(fmt::format("{}: expected a mapping of keys", parent.where(key)));
  return Block(parent.file(), parent.key_path() + "." + key, n);
}

// The eval pass's dataloader: trainer.fit.val_dataloader (the eval during training), else
// that of `cszoo validate` (trainer.validate.val_dataloader), else the first of
// trainer.validate_all.val_dataloaders (Model Zoo Trainer YAML, Release 2.3.0 and later). A
// validate block whose batch differs from fit's is named in a warning.
std::optional<Block> eval_dataloader(const Block& trainer, std::optional<Block> fit_val,
                                     std::vector<std::string>& warnings) {
  std::optional<Block> other;
  if (auto v = trainer.optional_child("validate")) other = dataloader(*v, "val_dataloader");
  if (!other)
    if (auto v = trainer.optional_child("validate_all")) other = dataloader(*v, "val_dataloaders");
  if (!fit_val) return other;
  if (other && other->has_value("batch_size") && fit_val->has_value("batch_size") &&
      other->get_string("batch_size") != fit_val->get_string("batch_size"))
    warnings.push_back(fmt::format(
        "{} = {} differs from {} = {}: the eval pass takes fit's, the eval during training (for "
        "`cszoo validate`'s, leave fit's out or pass --batch-size)",
        other->where("batch_size"), other->get_string("batch_size"), fit_val->where("batch_size"),
        fit_val->get_string("batch_size")));
  return fit_val;
}

struct Flags {
  MbsSource global, train, validate;
};

MbsSource setting_in(const Block& b, const std::string& key) {
  if (!b.has(key)) return {};
  return {parse_mbs_node(b.node()[key], b.where(key)), b.where(key)};
}

// Keys of a dataloader block: what the Model Zoo's data processors take, plus ours.
const std::vector<std::string>& dataloader_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k{"batch_size", "micro_batch_size"};
    const auto& more = model::modelzoo_dataloader_keys();
    k.insert(k.end(), more.begin(), more.end());
    return k;
  }();
  return keys;
}

std::vector<std::string> joined(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Flags read_callbacks(const Block& init, std::vector<std::string>& warnings) {
  Flags f;
  if (!init.has_value("callbacks")) return f;
  const YAML::Node list = init.node()["callbacks"];
  if (!list.IsSequence())
    throw InputError(fmt::format("{}: expected a list of callbacks", init.where("callbacks")));
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].IsMap()) {
      const std::string what = list[i].IsScalar()     ? fmt::format("'{}'", list[i].Scalar())
                               : list[i].IsSequence() ? std::string("a list")
                                                      : std::string("empty");
      warnings.push_back(fmt::format(
          "{}:{}: {}.callbacks[{}] is {}, not a callback (a mapping of the callback's name to "
          "its settings); ignored",
          init.file(), list[i].Mark().line + 1, init.key_path(), i, what));
      continue;
    }
    for (const auto& kv : list[i]) {
      const std::string name = kv.first.Scalar();
      const std::vector<std::string> flag_blocks{"GlobalFlags", "ScopedTrainFlags",
                                                 "ScopedValidateFlags"};
      const std::string hint = did_you_mean(name, flag_blocks);
      if (std::find(flag_blocks.begin(), flag_blocks.end(), name) == flag_blocks.end()) {
        if (!hint.empty() && name.find("Flag") != std::string::npos)
          warnings.push_back(
              fmt::format("{}: callback '{}' is not one the Model Zoo defines{}; "
                          "ignored",
                          init.where("callbacks"), name, hint));
        continue;
      }
      if (!kv.second.IsMap()) continue;
      const Block b(init.file(), fmt::format("{}.callbacks[{}].{}", init.key_path(), i, name),
                    kv.second);
      b.warn_unknown_keys({kMbsFlag}, true, warnings);
      auto setting = setting_in(b, kMbsFlag);
      if (!setting.value) continue;
      (name == "GlobalFlags"        ? f.global
       : name == "ScopedTrainFlags" ? f.train
                                    : f.validate) = setting;
    }
  }
  return f;
}

// The model path a scenario file names (trainer.init.model, or the legacy top-level model:),
// when `path` is such a scenario; nullopt for a model file, or one that does not read.
std::optional<std::string> model_named_by_scenario(const std::string& path) {
  try {
    std::vector<std::string> ignored;
    const YAML::Node root = load_modelzoo_yaml_file(path, ignored);
    const YAML::Node& top = root;  // const: a lookup adds no key (a Node's = assigns into it)
    const YAML::Node trainer = top["trainer"];
    const YAML::Node model =
        trainer.IsMap() && trainer["init"].IsMap() ? trainer["init"]["model"] : top["model"];
    if (model.IsScalar()) return model.Scalar();
  } catch (const std::exception&) {  // load_model says what is wrong with it
  }
  return std::nullopt;
}

model::ModelSpec read_model_ref(const YAML::Node& root, const Block& holder,
                                const std::string& file, const std::string& data_dir,
                                std::optional<std::int64_t> seq_len,
                                const std::optional<Block>& train_data) {
  if (!holder.has_value("model"))
    throw InputError(
        fmt::format("{}: required key is missing (the model: inline, or a models/ "
                    "file)",
                    holder.where("model")));
  const YAML::Node ref = holder.node()["model"];
  if (!ref.IsScalar()) return model::read_model(root, file, seq_len);
  // A referenced model file takes the scenario's sequence length, if it sets one.
  if (!seq_len && train_data) seq_len = train_data->get_int_opt("max_sequence_length");
  namespace fs = std::filesystem;
  const std::string name = ref.Scalar();
  const fs::path named = path_named_by(file, name);
  fs::path path = named;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) path = fs::path(data_dir) / "models" / (name + ".yaml");
  if (!fs::exists(path, ec) && fs::exists(named, ec))
    throw InputError(fmt::format(
        "{} = '{}': {} is {}, expected a model file", holder.where("model"), name, named.string(),
        fs::is_directory(named, ec) ? "a directory" : "not a regular file"));
  if (!fs::exists(path, ec)) {
    throw InputError(fmt::format(
        "{} = '{}': no such model file (relative to the scenario, or a "
        "name in models/){}",
        holder.where("model"), name,
        did_you_mean_model(name, named.parent_path(), fs::path(data_dir) / "models", file)));
  }
  try {
    return model::load_model(path.string(), seq_len);
  } catch (const InputError&) {  // a scenario named as the model: say that, not its first error
    if (fs::equivalent(path, file, ec))
      throw InputError(fmt::format(
          "{} = '{}': names this scenario itself; name the model file (a models/ name or a "
          "path to a Model Zoo params file)",
          holder.where("model"), name));
    if (const auto inner = model_named_by_scenario(path.string()))
      throw InputError(fmt::format(
          "{} = '{}': {} is a scenario (its model is '{}'), not a model file; name that "
          "model, or run {} itself",
          holder.where("model"), name, path.string(), *inner, path.string()));
    throw;
  }
}

void read_simulation(const Block& root, Scenario& s) {
  auto sim = root.optional_child("simulation");
  if (!sim) return;
  // A key of the Model Zoo's own blocks written here: say where it goes.
  static const std::map<std::string, std::string> elsewhere{
      {"num_csx",
       "trainer.init.backend.cluster_config.num_csx (runconfig.num_csx in the legacy "
       "layout), or --num-csx"},
      {"batch_size",
       "trainer.fit.train_dataloader.batch_size (train_input.batch_size in the "
       "legacy layout), or --batch-size"},
      {"micro_batch_size",
       "a GlobalFlags callback's csx.performance.micro_batch_size "
       "(train_input.micro_batch_size in the legacy layout), or "
       "--micro-batch-size"},
      {"max_steps",
       "trainer.init.loop.max_steps (runconfig.max_steps in the legacy layout), or "
       "--steps"},
      {"model", "trainer.init.model (a path or a block; model: at the top in the legacy layout)"}};
  for (const auto& kv : sim->node())
    if (const auto it = elsewhere.find(kv.first.Scalar()); it != elsewhere.end())
      throw InputError(fmt::format("{}: not a simulation key; csxsim reads it from {}",
                                   sim->where(it->first), it->second));
  sim->require_known_keys(kSimulationKeys);
  // Our own block: a key written without a value is a mistake, not a default.
  for (const auto& kv : sim->node())
    if (kv.second.IsNull())
      throw InputError(fmt::format("{}: no value; give one or leave the key out",
                                   sim->where(kv.first.Scalar())));
  if (auto p = sim->get_string_opt("platform")) {
    // A platform file is read relative to the scenario, as its model file is.
    s.platform = platform::is_platform_path(*p) ? path_named_by(root.file(), *p) : *p;
    s.platform_where = sim->where("platform");
  }
  s.simulated_steps_where = sim->where("simulated_steps");
  if (auto m = sim->get_string_opt("mode")) s.mode = parse_mode(*m, sim->where("mode"));
  if (sim->has_value("compile_only")) s.compile_only = sim->get_bool("compile_only", false);
  s.simulated_steps = sim->get_int_opt("simulated_steps", 2).value_or(2);
  if (s.simulated_steps > 100)
    throw InputError(fmt::format("{} = {}: at most 100 steps are simulated",
                                 sim->where("simulated_steps"), s.simulated_steps));
  if (const auto v =
          sim->get_number_opt("input_samples_per_s", kAnyNumber.first, kAnyNumber.second)) {
    s.input_samples_per_s_where = sim->where("input_samples_per_s");
    if (!(*v >= kMinInputRate && *v <= kMaxInputRate))
      throw InputError(
          fmt::format("{} = {:g}: {} (leave the key out: the platform's rate for an "
                      "ImageNet1KProcessor dataloader, else no input simulation)",
                      s.input_samples_per_s_where, *v, input_rate_rule()));
    s.input_samples_per_s = *v;
  }
  // A relative speedup (0.03: 3 % faster). 1 already asks for twice as fast, so a value of 1 or
  // more is most likely a percentage: said, not refused (it is a legal threshold).
  // Any number first, so a percentage above the bound is named as one; the bound check follows.
  if (const auto v = sim->get_number_opt("auto_min_speedup", kAnyNumber.first, kAnyNumber.second);
      v && *v > 10)
    throw InputError(fmt::format(
        "{} = {:g}: a relative speedup, at most 10 (0.03: 3 % faster); for {:g} % write {:g}",
        sim->where("auto_min_speedup"), *v, *v, *v / 100));
  if (auto v = sim->get_number_opt("auto_min_speedup", 0, 10)) {
    if (*v >= 1)
      s.warnings.push_back(fmt::format(
          "{} = {:g}: a relative speedup, so auto leaves the whole batch only for a candidate "
          "{:g}x as fast; for {:g} % write {:g}",
          sim->where("auto_min_speedup"), *v, 1 + *v, *v, *v / 100));
    s.auto_min_speedup = *v;
  }
}

// The train dataloader (trainer.fit.train_dataloader or the legacy train_input): its batch (or
// the key that may be its typo), MBS, input processes and data processor; the val pass starts
// from its processes and processor.
void read_train_dataloader(const Block& train, Scenario& s) {
  train.warn_unknown_keys(dataloader_keys(), false, s.warnings);
  s.batch_size = train.get_int_opt("batch_size");
  if (s.batch_size) s.batch_size_where = train.where("batch_size");
  if (!s.batch_size) s.batch_size_hint = train.near_miss("batch_size");
  s.train_mbs.dataloader = setting_in(train, "micro_batch_size");
  read_dataloader_processes(train, s.input_processes_per_worker, s.train_data_processor, s);
  s.input_eval_processes_per_worker = s.input_processes_per_worker;
  s.eval_data_processor = s.train_data_processor;
}

// The val dataloader (eval_dataloader's, or the legacy eval_input), as the train one.
void read_val_dataloader(const Block& val, Scenario& s) {
  val.warn_unknown_keys(dataloader_keys(), false, s.warnings);
  s.eval_batch_size = val.get_int_opt("batch_size");
  if (s.eval_batch_size) s.eval_batch_size_where = val.where("batch_size");
  if (val.has("batch_size") && !val.has_value("batch_size"))
    s.eval_batch_size_empty = val.where("batch_size");
  s.eval_mbs.dataloader = setting_in(val, "micro_batch_size");
  read_dataloader_processes(val, s.input_eval_processes_per_worker, s.eval_data_processor, s);
}

}  // namespace

Scenario read_scenario_unchecked(const YAML::Node& root_node, const std::string& file,
                                 const std::string& data_dir, std::optional<std::int64_t> seq_len);

std::string input_rate_rule() {
  return fmt::format(
      "the samples/s one input dataloader process delivers, a number from {:g} to {:g}",
      kMinInputRate, kMaxInputRate);
}

std::string to_string(Mode m) {
  return kModeNames.at(static_cast<std::size_t>(m));
}

Mode parse_mode(const std::string& text, const std::string& where) {
  const auto it = std::find(kModeNames.begin(), kModeNames.end(), text);
  if (it != kModeNames.end()) return static_cast<Mode>(it - kModeNames.begin());
  if (text == "eval_all")  // Model Zoo's run.py mode that evaluates every checkpoint of a run
    throw InputError(fmt::format(
        "{} = 'eval_all': that is the Model Zoo's mode that evaluates every checkpoint; here the "
        "mode must be train, eval or train_and_eval (eval times one evaluation pass, the same "
        "for each checkpoint; a Model Zoo runconfig's mode: eval_all is read as eval)",
        where));
  throw InputError(fmt::format("{} = '{}': the mode must be train, eval or train_and_eval{}", where,
                               text, did_you_mean(text, kModeNames)));
}

batching::MbsSetting parse_mbs_node(const YAML::Node& n, const std::string& where) {
  if (n.IsNull()) return batching::MbsNone{};
  if (n.IsMap()) {
    const Block b("", "", n);
    for (const auto& kv : n)
      if (kv.first.Scalar() != "explore")
        throw InputError(
            fmt::format("{}: unknown key '{}' in micro_batch_size (only explore: "
                        "{{min, max}}){}",
                        where, kv.first.Scalar(), did_you_mean(kv.first.Scalar(), {"explore"})));
    if (!n["explore"].IsDefined())
      throw InputError(
          fmt::format("{}: an empty mapping is not a micro_batch_size setting (use "
                      "auto, explore, none, an integer or {{explore: {{min, max}}}})",
                      where));
    const YAML::Node e = n["explore"];
    batching::MbsExplore x;
    if (e.IsMap()) {
      for (const auto& kv : e)
        if (kv.first.Scalar() != "min" && kv.first.Scalar() != "max")
          throw InputError(fmt::format("{}.explore: unknown key '{}'{}", where, kv.first.Scalar(),
                                       did_you_mean(kv.first.Scalar(), {"min", "max"})));
      if (e["min"] && !e["min"].IsNull())
        x.min = csx::parse_whole(e["min"].Scalar(), where + ".explore.min", 1);
      if (e["max"] && !e["max"].IsNull())
        x.max = csx::parse_whole(e["max"].Scalar(), where + ".explore.max", 1);
      if (x.min && x.max && *x.min > *x.max)
        throw InputError(
            fmt::format("{}.explore: min {} is larger than max {}", where, *x.min, *x.max));
    } else if (!e.IsNull()) {
      throw InputError(fmt::format("{}.explore: expected {{min, max}}", where));
    }
    return x;
  }
  if (!n.IsScalar())
    throw InputError(
        fmt::format("{} is a list: expected auto, explore, none or an integer", where));
  const std::string text = n.Scalar();
  if (text == "auto" || text == "explore" || text == "none")
    return batching::parse_mbs_setting(text, where);
  if (text.find(':') == std::string::npos && !text.empty() &&
      (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-' || text[0] == '+'))
    return batching::MbsFixed{csx::parse_whole(text, where, 1)};
  return batching::parse_mbs_setting(text, where);
}

Scenario load_scenario(const std::string& file, const std::string& data_dir,
                       std::optional<std::int64_t> seq_len) {
  std::vector<std::string> duplicates;
  const YAML::Node root = load_modelzoo_yaml_file(file, duplicates);
  Scenario s =
      carrying_warnings(duplicates, [&] { return read_scenario(root, file, data_dir, seq_len); });
  s.warnings.insert(s.warnings.begin(), duplicates.begin(), duplicates.end());
  return s;
}

Scenario read_scenario(const YAML::Node& root_node, const std::string& file,
                       const std::string& data_dir, std::optional<std::int64_t> seq_len) {
  try {
    return read_scenario_unchecked(root_node, file, data_dir, seq_len);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}: {}", file, e.mark.line + 1, e.msg));
  }
}

Scenario read_scenario_unchecked(const YAML::Node& root_node, const std::string& file,
                                 const std::string& data_dir, std::optional<std::int64_t> seq_len) {
  if (!root_node.IsMap())
    throw InputError(fmt::format("{}: expected a YAML mapping of keys at the top level", file));
  const Block root(file, "", root_node);
  Scenario s;
  s.file = file;
  root.warn_unknown_keys(
      joined({"trainer", "simulation", "train_input", "eval_input", "model", "runconfig"},
             {"optimizer", "sparsity", "csconfig", "description", "eval_input_2", "train_input_2"}),
      true, s.warnings);
  // `simulation` is our own block: a near miss of its name is refused, not ignored.
  for (const auto& kv : root_node) {
    const std::string key = kv.first.Scalar();
    if (key != "simulation" && !did_you_mean(key, {"simulation"}).empty())
      throw InputError(
          fmt::format("{}: unknown key (did you mean 'simulation'?)", root.where(key)));
  }
  if (root.has_value("trainer")) {
    const Block trainer(file, "trainer", model::trainer_node(root_node, file));
    // A multi-phase file (a list of trainers, run one after another): the first phase only.
    if (const YAML::Node phases = root_node["trainer"]; phases.IsSequence() && phases.size() > 1)
      s.warnings.push_back(fmt::format(
          "{}: a list of {} training phases; csxsim simulates the first only (the others' "
          "batch sizes, models and steps are not read; run each phase as a file of its own)",
          root.where("trainer"), phases.size()));
    trainer.warn_unknown_keys(joined({"init", "fit"}, {"validate", "validate_all"}), true,
                              s.warnings);
    const Block init = trainer.child("init");
    init.warn_unknown_keys(joined({"backend", "callbacks", "loop", "model"},
                                  {"checkpoint", "logging", "model_dir", "optimizer", "precision",
                                   "schedulers", "seed", "autorestart"}),
                           true, s.warnings);
    std::optional<Block> train, val;
    if (auto fit = trainer.optional_child("fit")) {
      fit->warn_unknown_keys(joined({"train_dataloader", "val_dataloader"}, {"ckpt_path"}), true,
                             s.warnings);
      train = dataloader(*fit, "train_dataloader");
      val = dataloader(*fit, "val_dataloader");
    }
    val = eval_dataloader(trainer, val, s.warnings);
    s.model = read_model_ref(root_node, init, file, data_dir, seq_len, train);
    if (auto backend = init.optional_child("backend"))
      if (auto cluster = backend->optional_child("cluster_config")) {
        cluster->warn_unknown_keys(joined({"num_csx", "num_workers_per_csx"}, kClusterIgnored),
                                   true, s.warnings);
        s.num_csx = cluster->get_int_opt("num_csx");
        if (s.num_csx) s.num_csx_where = cluster->where("num_csx");
        // 0 leaves the count to the stack ("a default value based on the model", the Model
        // Zoo's cli_parser, Release 2.3.0): read as one worker, the runconfig's default.
        if (const auto w = input_count(*cluster, "num_workers_per_csx", 0, s))
          s.input_workers_per_csx = std::max<std::int64_t>(1, *w);
      }
    if (auto loop = init.optional_child("loop")) {
      loop->warn_unknown_keys(joined({"max_steps", "num_steps"}, kLoopIgnored), true, s.warnings);
      s.max_steps = training_steps(*loop);
    }
    const Flags flags = read_callbacks(init, s.warnings);
    if (train) {
      read_train_dataloader(*train, s);
    }
    if (val) {
      read_val_dataloader(*val, s);
    }
    s.train_mbs.scoped = flags.train;
    s.train_mbs.global = flags.global;
    s.eval_mbs.scoped = flags.validate;
    s.eval_mbs.global = flags.global;
  } else {
    if (!root.has_value("model"))
      throw InputError(
          fmt::format("{}: no model found: expected trainer.init.model (Trainer "
                      "layout) or model (legacy layout)",
                      file));
    const auto train = root.optional_child("train_input");
    s.model = read_model_ref(root_node, root, file, data_dir, seq_len, train);
    if (train) {
      read_train_dataloader(*train, s);
      if (s.batch_size && tensorflow_layout(file))
        s.warnings.push_back(fmt::format(
            "{} = {}: a TensorFlow file of the Model Zoo's R_1.7.0 layout sets the batch of each "
            "system (the Model Zoo's TF input functions batch every system's input pipeline by "
            "it; docs/modelzoo.md#model-zoo-files): the global batch is {} x num_csx",
            train->where("batch_size"), *s.batch_size, *s.batch_size));
    }
    if (auto eval = root.optional_child("eval_input")) {
      read_val_dataloader(*eval, s);
    }
    s.batch_size_per_system = tensorflow_layout(file);
    if (auto run = root.optional_child("runconfig")) {
      run->warn_unknown_keys(joined({"num_csx", "max_steps", "num_steps", "mode", "compile_only",
                                     "num_workers_per_csx"},
                                    kRunconfigIgnored),
                             true, s.warnings);
      s.num_csx = run->get_int_opt("num_csx");
      if (s.num_csx) s.num_csx_where = run->where("num_csx");
      s.max_steps = training_steps(*run);
      // The legacy RunConfig's default is 0, read as one worker per CS-X.
      if (const auto w = input_count(*run, "num_workers_per_csx", 0, s))
        s.input_workers_per_csx = std::max<std::int64_t>(1, *w);
      // The legacy layout's run mode and compile_only (simulation.mode and --mode win).
      if (auto m = run->get_string_opt("mode")) {
        const std::string mode = *m == "eval_all" ? "eval" : *m;
        if (std::find(kModeNames.begin(), kModeNames.end(), mode) != kModeNames.end())
          s.mode = parse_mode(mode, run->where("mode"));
        else
          s.warnings.push_back(fmt::format(
              "{} = '{}': csxsim simulates train, eval or train_and_eval; ignored (simulation.mode "
              "or --mode, else train)",
              run->where("mode"), *m));
      }
      if (run->has_value("compile_only")) s.compile_only = run->get_bool("compile_only", false);
    }
  }
  read_simulation(root, s);
  s.warnings.insert(s.warnings.begin(), s.model.warnings.begin(), s.model.warnings.end());
  return s;
}

}  // namespace csx::io
