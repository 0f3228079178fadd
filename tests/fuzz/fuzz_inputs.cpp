// libFuzzer target: YAML text as a scenario, a model file and a platform file, then the
// microbatching rules on what it says. Only InputError may come out; anything else (a crash,
// a sanitizer report, another exception) is a bug.
#include <yaml-cpp/yaml.h>
#include <cstddef>
#include <cstdint>
#include <string>

#include "batching/resolve.hpp"
#include "batching/step_plan.hpp"
#include "common/errors.hpp"
#include "input/model_loader.hpp"
#include "input/platform_loader.hpp"
#include "input/scenario.hpp"
#include "model/layer_costs.hpp"
#include "model/memory_model.hpp"

namespace {

const csx::platform::PlatformSpec& cs2() {
  static const auto p = csx::platform::load_platform("cs2", CSXSIM_SOURCE_DIR);
  return p;
}

void exercise_rules(const csx::io::Scenario& s) {
  using namespace csx;
  const std::int64_t B = s.batch_size.value_or(64), N = s.num_csx.value_or(1);
  if (B > 1000000 || N > 4096) return;  // S(P) grows as sqrt(P): keep executions fast
  const auto split = batching::split_batch(B, N);
  const batching::ModelTraits traits{s.model.label, s.model.transformer(), s.model.batch_norm()};
  for (const auto& source : {s.train_mbs.scoped, s.train_mbs.global, s.train_mbs.dataloader,
                             s.eval_mbs.scoped, s.eval_mbs.global, s.eval_mbs.dataloader}) {
    const auto r = batching::resolve(source.value.value_or(batching::MbsAuto{}), split, traits,
                                     s.compile_only);
    for (const auto mbs : r.candidates) {
      const auto plan = batching::make_plan(split, mbs);
      if (plan.num_microbatches <= 4096) (void)batching::gradient_weights(plan);
    }
  }
  const auto costs = model::layer_costs(s.model);
  (void)model::on_chip_memory(costs, cs2(), 1, model::Pass::kTrain);
  (void)model::max_fitting_micro_batch_size(costs, cs2(), model::Pass::kTrain);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception&) {
    return 0;
  }
  try {
    exercise_rules(csx::io::read_scenario(root, "fuzz.yaml", CSXSIM_SOURCE_DIR));
  } catch (const csx::InputError&) {
  }
  try {
    (void)csx::model::layer_costs(csx::model::read_model(root, "fuzz.yaml"));
  } catch (const csx::InputError&) {
  }
  try {
    (void)csx::platform::read_platform(root, "fuzz.yaml");
  } catch (const csx::InputError&) {
  }
  return 0;
}
