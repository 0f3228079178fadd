// Google Benchmark microbenchmarks of the pure code: S(P) up to 2^31, MBS resolution, the cost
// and memory models. Run by tools/bench --micro; never timed in tests.
#include <benchmark/benchmark.h>

#include "batching/resolve.hpp"
#include "batching/supported_sizes.hpp"
#include "input/model_loader.hpp"
#include "input/platform_loader.hpp"
#include "model/layer_costs.hpp"
#include "model/memory_model.hpp"

namespace {

void SupportedSizes(benchmark::State& state) {
  const std::int64_t P = state.range(0);
  for (auto _ : state) benchmark::DoNotOptimize(csx::batching::supported_micro_batch_sizes(P));
  state.SetLabel("P = " + std::to_string(P));
}
BENCHMARK(SupportedSizes)->RangeMultiplier(32)->Range(1 << 6, std::int64_t{1} << 31);

void ResolveFixed(benchmark::State& state) {
  const auto split = csx::batching::split_batch(std::int64_t{1} << 31, 2048);
  const csx::batching::ModelTraits traits{"gpt3", true, false};
  for (auto _ : state)
    benchmark::DoNotOptimize(
        csx::batching::resolve(csx::batching::MbsFixed{777}, split, traits, false));
}
BENCHMARK(ResolveFixed);

void AutoCandidates(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(csx::batching::auto_candidates(state.range(0)));
}
BENCHMARK(AutoCandidates)->Arg(528)->Arg(1 << 20)->Arg(std::int64_t{1} << 31);

void LayerCosts(benchmark::State& state) {
  const auto spec =
      csx::model::load_model(std::string(CSXSIM_SOURCE_DIR) + "/models/gpt3_175b.yaml");
  for (auto _ : state) benchmark::DoNotOptimize(csx::model::layer_costs(spec));
}
BENCHMARK(LayerCosts);

void MemoryFit(benchmark::State& state) {
  const auto costs = csx::model::layer_costs(
      csx::model::load_model(std::string(CSXSIM_SOURCE_DIR) + "/models/gpt3_175b.yaml"));
  const auto p = csx::platform::load_platform("cs2", CSXSIM_SOURCE_DIR);
  for (auto _ : state)
    benchmark::DoNotOptimize(
        csx::model::max_fitting_micro_batch_size(costs, p, csx::model::Pass::kTrain));
}
BENCHMARK(MemoryFit);

}  // namespace

BENCHMARK_MAIN();
