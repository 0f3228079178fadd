// Model Zoo layouts and YAML as the Cerebras stack reads them: duplicate keys (PyYAML: the later
// wins; our own blocks stay strict), the R_1.7.0 layout (fine_tuning/<head> folders,
// pretrain_params_path, sizes under train_input or a known vocab_file, per-system TensorFlow
// batch sizes), BERTSUM past its position table and batch-norm refusals. Every expected value is
// worked out here from the files written by each test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>

#include "app/job.hpp"
#include "common/errors.hpp"
#include "input/model_loader.hpp"
#include "input/scenario.hpp"
#include "input/yaml_block.hpp"
#include "temp_files.hpp"

using namespace csx::model;
namespace fs = std::filesystem;

namespace {

// Each test's files in a folder of its own.
struct TempTree : csx::testing::TempFiles {
  TempTree() : csx::testing::TempFiles("csxsim_mzl_") {}
};

std::string error_of(const std::string& file) {
  try {
    (void)load_model(file);
  } catch (const csx::InputError& e) {
    return e.what();
  }
  return "";
}

const char* kSmallBert = R"(  vocab_size: 30522
  hidden_size: 64
  num_hidden_layers: 4
  num_heads: 4
  filter_size: 256
  max_position_embeddings: 512
)";

}  // namespace

// PyYAML keeps the last of two equal keys; csxsim does the same in Model Zoo files and says so,
// naming both lines. Equal repeats say nothing; our simulation: block and strict loads refuse.
TEST(ModelzooLayout, DuplicateKeysLaterWins) {
  TempTree t;
  const auto file = t.write("dup.yaml", "a: 1\nb:\n  c: 2\n  c: 3\na: 4\nd: 5\nd: 5\n");
  std::vector<std::string> warnings;
  const auto root = csx::io::load_modelzoo_yaml_file(file, warnings);
  EXPECT_EQ(root["a"].as<int>(), 4);
  EXPECT_EQ(root["b"]["c"].as<int>(), 3);
  EXPECT_EQ(root["d"].as<int>(), 5);
  ASSERT_EQ(warnings.size(), 2u);  // a and c; d repeats an equal value
  EXPECT_NE(warnings[0].find("dup.yaml:5: duplicate key 'a' (also on line 1)"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[1].find("dup.yaml:4: duplicate key 'c' (also on line 3)"), std::string::npos)
      << warnings[1];
  EXPECT_THROW((void)csx::io::load_yaml_file(file), csx::InputError);  // platforms: strict

  const auto ours = t.write("sim.yaml", "a: 1\nsimulation:\n  platform: cs2\n  platform: cs3\n");
  EXPECT_THROW((void)csx::io::load_modelzoo_yaml_file(ours, warnings), csx::InputError);
  const auto twice = t.write("sim2.yaml", "simulation: {mode: train}\nsimulation: {mode: eval}\n");
  EXPECT_THROW((void)csx::io::load_modelzoo_yaml_file(twice, warnings), csx::InputError);
}

// A fine-tuning file extends its pretraining config: the path is resolved against the model's
// folder (the parent of configs/), the file's own keys win, use_vsl is dropped, and the family
// comes from <family>/fine_tuning/<head>/configs/.
TEST(ModelzooLayout, PretrainParamsPath) {
  TempTree t;
  t.write("bert/configs/base.yaml", std::string("model:\n") + kSmallBert + "  use_vsl: True\n");
  const auto ft = t.write("bert/fine_tuning/classifier/configs/ft.yaml", R"(train_input:
  max_sequence_length: 128
  batch_size: 8
model:
  pretrain_params_path: "../../configs/base.yaml"
  num_hidden_layers: 2
)");
  const ModelSpec s = load_model(ft);
  EXPECT_EQ(s.name, "bert/classifier");
  ASSERT_EQ(s.stacks.size(), 1u);
  EXPECT_EQ(s.stacks[0].hidden_size, 64);  // from the pretraining file
  EXPECT_EQ(s.stacks[0].num_layers, 2);    // the file's own key over the pretraining file's 4
  EXPECT_EQ(s.vocab_size, 30522);
  EXPECT_EQ(s.seq_len, 128);
  EXPECT_EQ(std::count(s.ignored_keys.begin(), s.ignored_keys.end(), "use_vsl"), 0);

  const auto missing = t.write("bert/fine_tuning/qa/configs/m.yaml",
                               "model:\n  pretrain_params_path: \"../../configs/none.yaml\"\n");
  const std::string e = error_of(missing);
  EXPECT_NE(e.find("m.yaml:2: model.pretrain_params_path = '../../configs/none.yaml'"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("bert/configs/none.yaml"), std::string::npos) << e;  // the file it looked for
}

// R_1.7.0 TensorFlow files keep vocab_size under train_input, or only name a vocabulary file;
// their batch_size is per system. The same file in the PyTorch tree keeps a global batch.
TEST(ModelzooLayout, TensorflowFiles) {
  TempTree t;
  const std::string gpt = R"(train_input:
  vocab_size: 50257
  max_sequence_length: 1024
  batch_size: 66
model:
  hidden_size: 64
  num_hidden_layers: 2
  num_heads: 4
  filter_size: 256
  max_position_embeddings: 1024
)";
  const auto tf = t.write("transformers/tf/gpt2/configs/p.yaml", gpt);
  const auto pt = t.write("transformers/pytorch/gpt2/configs/p.yaml", gpt);
  const auto a = csx::io::load_scenario(tf, CSXSIM_SOURCE_DIR);
  EXPECT_EQ(a.model.name, "gpt2");
  EXPECT_EQ(a.model.vocab_size, 50257);
  EXPECT_EQ(a.batch_size, 66);
  EXPECT_TRUE(a.batch_size_per_system);
  EXPECT_FALSE(csx::io::load_scenario(pt, CSXSIM_SOURCE_DIR).batch_size_per_system);

  // T5's vocabulary file (32001 entries) plus 100 sentinel ids.
  const auto t5 = t.write("transformers/tf/t5/configs/t.yaml", R"(train_input:
  vocab_file: "./t5/c4/vocab.txt"
  extra_ids: 100
  src_max_sequence_length: 512
  tgt_max_sequence_length: 114
model:
  d_model: 64
  d_kv: 16
  num_heads: 4
  d_ff: 256
  encoder_num_hidden_layers: 2
)");
  EXPECT_EQ(load_model(t5).vocab_size, 32101);
  const auto unknown = t.write("transformers/tf/bert/configs/u.yaml", R"(train_input:
  vocab_file: "my_own_vocab.txt"
  max_sequence_length: 128
model:
  hidden_size: 64
  num_hidden_layers: 2
  num_heads: 4
  filter_size: 256
  max_position_embeddings: 512
)");
  EXPECT_NE(error_of(unknown).find("no vocabulary size: neither model.vocab_size"),
            std::string::npos);
}

// BERTSUM of Releases 1.9 to 2.1: 1532 tokens over 512 positions runs on all 1532 tokens; the
// same lengths for BERT pretraining stay refused.
TEST(ModelzooLayout, BertsumPastPositionTable) {
  TempTree t;
  const std::string body =
      std::string("train_input:\n  max_sequence_length: 1532\n  max_cls_tokens: 50\nmodel:\n") +
      kSmallBert;
  const ModelSpec s = load_model(t.write("bert/extractive_summarization/configs/s.yaml", body));
  EXPECT_EQ(s.seq_len, 1532);
  EXPECT_EQ(s.stacks[0].tokens, 1532);
  EXPECT_EQ(s.max_position_embeddings, 512);
  EXPECT_NE(error_of(t.write("bert/configs/b.yaml", body)).find("exceeds max_position_embeddings"),
            std::string::npos);
}

// Batch-norm networks are refused with the family and the microbatching limitation.
TEST(ModelzooLayout, BatchNormRefusals) {
  TempTree t;
  const std::string unet = error_of(
      t.write("vision/pytorch/unet/configs/u.yaml", "model:\n  norm_layer: \"batchnorm2d\"\n"));
  EXPECT_NE(unet.find("model family 'unet' is not modelled"), std::string::npos) << unet;
  EXPECT_NE(unet.find("microbatching is not compatible with batch normalization"),
            std::string::npos)
      << unet;
  const std::string other =
      error_of(t.write("nets/n.yaml", "model:\n  layers: 3\n  norm_type: BatchNorm\n"));
  EXPECT_NE(other.find("microbatching is not compatible with batch normalization"),
            std::string::npos)
      << other;
  EXPECT_EQ(other.find("cannot be told"), std::string::npos) << other;
}

// The input pipeline's counts (docs/model.md#input-pipeline): num_workers_per_csx from the
// Trainer's cluster_config or the legacy runconfig (default 1), the train dataloader's
// num_workers processes per worker (0: the worker's main process, 1), and one process's rate
// from our simulation block. A Model Zoo value csxsim cannot use warns and keeps the default.
TEST(ModelzooLayout, InputPipelineCounts) {
  TempTree t;
  // kSmallBert under trainer.init.model: each of its lines 4 spaces deeper.
  std::string model = "    model:\n      name: bert\n";
  std::istringstream lines(kSmallBert);
  for (std::string line; std::getline(lines, line);) model += "    " + line + "\n";
  const auto trainer = t.write("trainer.yaml",
                               "trainer:\n  init:\n    backend:\n"
                               "      backend_type: CSX\n"
                               "      cluster_config:\n"
                               "        num_workers_per_csx: 2\n" +
                                   model +
                                   "  fit:\n    train_dataloader:\n"
                                   "      batch_size: 64\n"
                                   "      num_workers: 8\n"
                                   "    val_dataloader:\n"
                                   "      batch_size: 16\n"
                                   "      num_workers: 0\n"
                                   "simulation:\n  input_samples_per_s: 25\n");
  const auto s = csx::io::load_scenario(trainer, ".");
  EXPECT_EQ(s.input_workers_per_csx, 2);
  EXPECT_EQ(s.input_processes_per_worker, 8);
  EXPECT_EQ(s.input_eval_processes_per_worker, 1);  // the val dataloader's 0: its main process
  ASSERT_TRUE(s.input_samples_per_s);
  EXPECT_EQ(*s.input_samples_per_s, 25);

  // cluster_config's 0 leaves the count to the stack (Model Zoo cli_parser): one worker.
  std::ifstream in(trainer);
  const std::string zero_text{std::istreambuf_iterator<char>(in), {}};
  const auto zero_file =
      t.write("zero.yaml", std::regex_replace(zero_text, std::regex("num_workers_per_csx: 2"),
                                              "num_workers_per_csx: 0"));
  const auto unset = csx::io::load_scenario(zero_file, ".");
  EXPECT_EQ(unset.input_workers_per_csx, 1);
  EXPECT_TRUE(unset.warnings.empty());

  const auto legacy = t.write("legacy.yaml", std::string("train_input:\n  batch_size: 64\n"
                                                         "  num_workers: 0\n"
                                                         "runconfig:\n  num_workers_per_csx: 3\n"
                                                         "model:\n") +
                                                 kSmallBert);
  const auto l = csx::io::load_scenario(legacy, ".");
  EXPECT_EQ(l.input_workers_per_csx, 3);
  EXPECT_EQ(l.input_processes_per_worker, 1);  // num_workers 0: the main process
  EXPECT_FALSE(l.input_samples_per_s);         // not simulated

  const auto odd = t.write("odd.yaml", std::string("train_input:\n  batch_size: 64\n"
                                                   "  num_workers: many\n"
                                                   "runconfig:\n  num_workers_per_csx: 0\n"
                                                   "model:\n") +
                                           kSmallBert);
  const auto o = csx::io::load_scenario(odd, ".");
  EXPECT_EQ(o.input_workers_per_csx, 1);  // the legacy RunConfig's 0: one worker, no warning
  EXPECT_EQ(o.input_processes_per_worker, 1);
  EXPECT_EQ(std::count_if(o.warnings.begin(), o.warnings.end(),
                          [](const std::string& w) {
                            return w.find("the input pipeline takes the default, 1") !=
                                   std::string::npos;
                          }),
            1);
  EXPECT_NE(o.input_count_problem.find("num_workers"), std::string::npos) << o.input_count_problem;

  const auto zero =
      t.write("zero.yaml", std::string("train_input:\n  batch_size: 64\nmodel:\n") + kSmallBert +
                               "simulation:\n  input_samples_per_s: 0\n");
  EXPECT_THROW((void)csx::io::load_scenario(zero, "."), csx::InputError);  // our block: strict
}

// A dataloader of the Model Zoo's ImageNet1KProcessor with no rate given is simulated at the
// platform's measured rate (platforms/cs2.yaml input_workers: 178 samples/s a process, the
// geometric mean of 163.8 and 192.7 from two ViT-B/16 logs): 2 processes x 2 workers = 712/s per
// CS-X, with the platform's spread in the interval. A rate given wins and is exact; another
// processor stays unsimulated.
TEST(ModelzooLayout, ImageNetDataloaderTakesThePlatformsRate) {
  TempTree t;
  const std::string body = std::string(
                               "train_input:\n  data_processor: ImageNet1KProcessor\n"
                               "  batch_size: 64\n  num_workers: 2\n"
                               "runconfig:\n  num_workers_per_csx: 2\nmodel:\n") +
                           kSmallBert;
  const auto s = csx::io::load_scenario(t.write("vit.yaml", body), ".");
  EXPECT_EQ(s.train_data_processor, "ImageNet1KProcessor");
  // Misspelled (one edit, 'k' for 'K'), it would go unsimulated without a word: warned.
  const auto hints = [](const csx::io::Scenario& x) {
    return std::count_if(x.warnings.begin(), x.warnings.end(), [](const std::string& w) {
      return w.find("did you mean 'ImageNet1KProcessor'") != std::string::npos;
    });
  };
  EXPECT_EQ(hints(s), 0);
  const auto typo = csx::io::load_scenario(
      t.write("typo.yaml", std::regex_replace(body, std::regex("1KP"), "1kP")), ".");
  EXPECT_EQ(hints(typo), 1);
  const auto job = csx::app::make_job(s, {}, CSXSIM_SOURCE_DIR);
  const auto& train = job.passes.front();
  EXPECT_DOUBLE_EQ(train.input_samples_per_s, 178);
  EXPECT_DOUBLE_EQ(csx::app::input_samples_per_csx(job.scenario, train), 712);
  EXPECT_DOUBLE_EQ(train.input_log_sd, 0.14);
  EXPECT_NE(train.input_where.find("ImageNet1KProcessor"), std::string::npos);

  csx::app::Overrides given;
  given.input_samples_per_s = 50;
  const auto mine = csx::app::make_job(s, given, CSXSIM_SOURCE_DIR);
  EXPECT_DOUBLE_EQ(mine.passes.front().input_samples_per_s, 50);
  EXPECT_DOUBLE_EQ(mine.passes.front().input_log_sd, 0);

  const auto other = csx::io::load_scenario(
      t.write("gpt.yaml", std::regex_replace(body, std::regex("ImageNet1KProcessor"),
                                             "GptHDF5MapDataProcessor")),
      ".");
  EXPECT_EQ(csx::app::make_job(other, {}, CSXSIM_SOURCE_DIR).passes.front().input_samples_per_s, 0);

  // Each pass takes its own dataloader's processor: an eval pass over text is not simulated.
  csx::app::Overrides both;
  both.mode = csx::io::Mode::kTrainAndEval;
  both.batch_size = 64;
  auto mixed = s;
  mixed.eval_data_processor = "GptHDF5MapDataProcessor";
  const auto two = csx::app::make_job(mixed, both, CSXSIM_SOURCE_DIR);
  ASSERT_EQ(two.passes.size(), 2u);
  EXPECT_DOUBLE_EQ(two.passes[0].input_samples_per_s, 178);
  EXPECT_EQ(two.passes[1].input_samples_per_s, 0);

  // Read from a file: a val dataloader without data_processor keeps the train one's; one that is
  // not a name (a list) leaves its pass unsimulated.
  const auto inherit = csx::io::load_scenario(
      t.write("inherit.yaml", body + "eval_input:\n  batch_size: 64\n"), ".");
  EXPECT_EQ(inherit.eval_data_processor, "ImageNet1KProcessor");
  const auto listed = csx::io::load_scenario(
      t.write("listed.yaml", body + "eval_input:\n  batch_size: 64\n  data_processor: [a, b]\n"),
      ".");
  EXPECT_EQ(listed.eval_data_processor, "");
  EXPECT_EQ(csx::app::make_job(listed, both, CSXSIM_SOURCE_DIR).passes[1].input_samples_per_s, 0);
  // Another real processor a few letters away is no typo: no hint.
  const auto other21k = csx::io::load_scenario(
      t.write("21k.yaml", std::regex_replace(body, std::regex("ImageNet1K"), "ImageNet21K")), ".");
  EXPECT_EQ(hints(other21k), 0);

  // 0 turns it off; a rate below 1e-3 samples/s is refused, as --input-rate's would be.
  csx::app::Overrides off;
  off.platform_overrides = {{"input_workers.imagenet1k_samples_per_s", "0"}};
  EXPECT_EQ(csx::app::make_job(s, off, CSXSIM_SOURCE_DIR).passes.front().input_samples_per_s, 0);
  off.platform_overrides = {{"input_workers.imagenet1k_samples_per_s", "1e-9"}};
  EXPECT_THROW((void)csx::app::make_job(s, off, CSXSIM_SOURCE_DIR), csx::InputError);
}
