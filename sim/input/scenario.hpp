// A scenario: a Trainer-style YAML (Model Zoo params file, Trainer or legacy layout) plus our
// optional `simulation:` block. Command-line flags override what the file says.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "batching/mbs_setting.hpp"
#include "model/model_spec.hpp"

namespace csx::io {

enum class Mode { kTrain, kEval, kTrainAndEval };

[[nodiscard]] std::string to_string(Mode m);
// Throws InputError (with a did-you-mean) for anything but train, eval, train_and_eval.
[[nodiscard]] Mode parse_mode(const std::string& text, const std::string& where);

// A micro_batch_size set in the file, and where ("file:line: key", for messages).
struct MbsSource {
  std::optional<batching::MbsSetting> value;
  std::string where;
};

// The file's micro_batch_size sources for one pass (docs/rules.md#microbatching-rules): the Trainer
// layout's ScopedTrainFlags / ScopedValidateFlags callback, its GlobalFlags callback, and the
// dataloader's key (train_dataloader / val_dataloader, or train_input / eval_input). Unset ones
// are empty.
struct MbsSources {
  MbsSource scoped;
  MbsSource global;
  MbsSource dataloader;
};

// Bounds of one input process's rate (samples/s): slower than one sample in 1,000 s or faster
// than 10^12 is taken for a typo.
inline constexpr double kMinInputRate = 1e-3;
inline constexpr double kMaxInputRate = 1e12;
// The Model Zoo data processor whose per-process rate a platform file may give
// (input_workers.imagenet1k_samples_per_s; docs/model.md#input-pipeline): JPEG decode and the
// training augmentation of ImageNet-1K. With no rate given, app::make_job simulates a pass whose
// dataloader names it at that rate.
inline constexpr std::string_view kImageNetProcessor = "ImageNet1KProcessor";

// What a rate must be, for the messages of --input-rate and simulation.input_samples_per_s.
[[nodiscard]] std::string input_rate_rule();

struct Scenario {
  std::string file;
  model::ModelSpec model;
  std::optional<std::int64_t> num_csx;     // cluster_config.num_csx / runconfig.num_csx
  std::optional<std::int64_t> batch_size;  // train dataloader / train_input (samples)
  // No batch_size in the train dataloader: a present key that may be its typo (Block::near_miss).
  std::string batch_size_hint;
  std::optional<std::int64_t> eval_batch_size;  // val dataloader / eval_input (samples)
  // "FILE:LINE: KEY" of an eval batch_size key without a value (an eval pass refuses it rather
  // than take the training batch), else "".
  std::string eval_batch_size_empty;
  // The TensorFlow files of the Model Zoo's R_1.7.0 layout set batch_size (and the eval one) per
  // system: the global batch is batch_size x num_csx (docs/modelzoo.md#model-zoo-files).
  bool batch_size_per_system = false;
  // Every micro_batch_size the file sets for training and for eval, each with where it is set.
  // Which one wins (with --micro-batch-size and the default auto) is app::mbs_setting's rule.
  MbsSources train_mbs;
  MbsSources eval_mbs;
  std::optional<std::int64_t> max_steps;  // loop. or runconfig.num_steps, else their max_steps
  std::string num_csx_where;              // "file:line: key" where num_csx was set
  std::string batch_size_where, eval_batch_size_where;  // likewise, the two batch sizes
  std::string platform_where;
  std::string simulated_steps_where;
  // Keys the Model Zoo does not define, a guessed family, ...: one line each, for stderr.
  std::vector<std::string> warnings;

  // simulation: block (ours).
  std::string platform = "cs2";
  Mode mode = Mode::kTrain;
  bool compile_only = false;
  std::int64_t simulated_steps = 2;
  // auto keeps P unless a candidate is this much faster (docs/rules.md#microbatching-rules: 3 %,
  // between the gains of the recorded decisions that kept P and of those that left it).
  double auto_min_speedup = 0.03;
  // The input pipeline (docs/model.md#input-pipeline): input workers per CS-X
  // (num_workers_per_csx of cluster_config or runconfig; the Cerebras default 1), each running
  // the train dataloader's num_workers processes (0: its main process, so 1), and the samples
  // per second one process delivers (simulation.input_samples_per_s; unset: not simulated).
  std::int64_t input_workers_per_csx = 1;
  std::int64_t input_processes_per_worker = 1;       // the train dataloader's
  std::int64_t input_eval_processes_per_worker = 1;  // the val dataloader's (eval_input)
  std::optional<double> input_samples_per_s;
  // The train and val dataloaders' data_processor (empty when not named): a platform that
  // knows one's rate simulates the input at it when no rate is given (app::make_job).
  std::string train_data_processor, eval_data_processor;
  // The first of those counts that could not be read (warned, default 1): refused when a rate
  // is given, which makes it decide the result.
  std::string input_count_problem;
  std::string input_samples_per_s_where;
};

// Loads a scenario or a Model Zoo params file. `model` may be inline (trainer.init.model / model)
// or a string naming a model file (relative to the scenario, or a models/ stem under data_dir).
// Throws InputError naming the file, key and value for anything malformed.
[[nodiscard]] Scenario load_scenario(const std::string& file, const std::string& data_dir,
                                     std::optional<std::int64_t> seq_len = std::nullopt);

// The same from an already parsed document (`file` names it in messages).
[[nodiscard]] Scenario read_scenario(const YAML::Node& root, const std::string& file,
                                     const std::string& data_dir,
                                     std::optional<std::int64_t> seq_len = std::nullopt);

// Parses a micro_batch_size YAML value: null (none), auto, explore, none, an integer, or
// {explore: {min: a, max: b}}.
[[nodiscard]] batching::MbsSetting parse_mbs_node(const YAML::Node& n, const std::string& where);

}  // namespace csx::io
