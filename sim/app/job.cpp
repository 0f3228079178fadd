// Scenario + overrides -> job -> searched candidates.
#include "app/job.hpp"

#include <fmt/format.h>
#include <cmath>
#include <limits>

#include "app/mbs_source.hpp"
#include "app/platform_setup.hpp"
#include "common/errors.hpp"
#include "engine/simulation.hpp"
#include "input/calibration_counts.hpp"
#include "input/platform_loader.hpp"

namespace csx::app {

std::string platform_label(const std::string& name, const std::string& variant) {
  return variant.empty() ? name : name + "+" + variant;
}

std::int64_t steps_for_tokens(double tokens, const Job& job, const std::string& tokens_text) {
  const std::string flag = tokens_text.empty() ? fmt::format("--tokens = {:g}", tokens)
                                               : fmt::format("--tokens {}", tokens_text);
  const auto& m = job.scenario.model;
  if (job.passes.front().pass != model::Pass::kTrain)
    throw InputError("--tokens: a token budget is for training; this run only evaluates");
  if (!m.transformer())
    throw InputError(fmt::format(
        "--tokens: {} ({}) counts images, not tokens; pass --steps instead", m.label, m.name));
  const double per_step =
      static_cast<double>(job.passes.front().batch_size) * static_cast<double>(m.seq_len);
  if (tokens < per_step)
    throw InputError(fmt::format("{}: below one step of batch_size {} x seq_len {} = {:g} tokens",
                                 flag, job.passes.front().batch_size, m.seq_len, per_step));
  if (tokens / per_step > kMaxTrainingSteps)
    throw InputError(fmt::format("{}: {:g} steps of {:g} tokens; at most {:g} steps", flag,
                                 std::ceil(tokens / per_step), per_step, kMaxTrainingSteps));
  return static_cast<std::int64_t>(std::ceil(tokens / per_step));
}

namespace {

// A pass's input rate (docs/model.md#input-pipeline): the one given (--input-rate, the file's
// simulation block), else the platform's for the pass's dataloader's data processor, else none.
void set_input_rate(Job& job, Job::Pass& p) {
  const io::Scenario& s = job.scenario;
  if (s.input_samples_per_s) {
    p.input_samples_per_s = *s.input_samples_per_s;
    p.input_where = s.input_samples_per_s_where;
    return;
  }
  const auto& processor = data_processor(s, p.pass);
  const double rate = job.platform.imagenet1k_samples_per_s;
  if (processor != io::kImageNetProcessor || rate <= 0) return;
  // A count that could not be read takes its default, 1, as the file's warning says.
  const auto key = job.platform.origin("input_workers.imagenet1k_samples_per_s");
  p.input_samples_per_s = rate;
  p.input_where = fmt::format("{}, for data_processor {}", key, processor);
  p.input_log_sd = job.platform.input_rate_log_sd;
}

}  // namespace

Job make_job(const io::Scenario& s, const Overrides& o, const std::string& data_dir) {
  Job job;
  job.scenario = s;
  job.platform = o.platform
                     ? load_platform_given(*o.platform, "--platform", *o.platform, data_dir)
                     : load_platform_given(s.platform, s.platform_where, s.platform, data_dir);
  platform::apply_overrides(job.platform, o.platform_overrides, o.refuse_other_platform_overrides);
  platform::apply_overrides(job.platform, o.variant_overrides, false, "--variant " + o.variant);
  job.platform_label = platform_label(job.platform.name, o.variant);
  for (const auto* list : {&o.platform_overrides, &o.variant_overrides})
    for (const auto& [key, value] : platform::overrides_for(job.platform.name, *list))
      job.overrides_text +=
          fmt::format("{}{}={}", job.overrides_text.empty() ? "" : ";", key, value);
  const auto& counts = io::calibration_counts(data_dir);
  job.interval = {job.platform.prediction_log_sd,
                  counts.runs_of_family(model::interval_family(s.model.name)),
                  counts.runs_on_platform(job.platform.name)};
  job.costs = model::layer_costs(s.model);
  job.num_csx_defaulted = !o.num_csx && !s.num_csx;
  job.num_csx = o.num_csx.value_or(s.num_csx.value_or(1));
  const std::string csx_from = o.num_csx ? o.num_csx_where : s.num_csx_where;
  if (job.num_csx > job.platform.max_cluster_size)
    throw RuleError(fmt::format("{}num_csx = {} exceeds the largest {} cluster, {} systems ({})",
                                csx_from.empty() ? "" : csx_from + ": ", job.num_csx,
                                job.platform.name, job.platform.max_cluster_size,
                                job.platform.origin("system.max_cluster_size")));
  job.scenario.compile_only = s.compile_only || o.compile_only;
  if (o.simulated_steps) job.scenario.simulated_steps = *o.simulated_steps;
  if (job.scenario.simulated_steps < 2 || job.scenario.simulated_steps > 100)
    throw InputError(fmt::format(
        "{} = {}: between 2 and 100 steps are simulated (the last is "
        "reported)",
        o.simulated_steps ? "--sim-steps" : s.simulated_steps_where, job.scenario.simulated_steps));
  if (o.input_samples_per_s) {
    job.scenario.input_samples_per_s = o.input_samples_per_s;
    job.scenario.input_samples_per_s_where = "--input-rate";
  }
  if (job.scenario.input_samples_per_s && !s.input_count_problem.empty())
    throw InputError(fmt::format(
        "{}: with an input rate ({}) the input workers' count decides the step; fix it or give "
        "no rate",
        s.input_count_problem, job.scenario.input_samples_per_s_where));
  job.training_steps = o.training_steps ? o.training_steps : s.max_steps;
  const io::Mode mode = o.mode.value_or(s.mode);
  // A pass's global batch from the file (an R_1.7.0 TensorFlow file's is per system: the global
  // one is batch_size x num_csx) and where it is set ("" for a per-system batch, whose
  // messages name the product).
  struct FileBatch {
    std::int64_t samples;
    std::string where;
  };
  const auto file_batch = [&](bool train) -> FileBatch {
    if (!train && !s.eval_batch_size_empty.empty())
      throw InputError(fmt::format(
          "{} is empty: give the eval batch size, leave the key out (the training batch is then "
          "used) or pass --batch-size",
          s.eval_batch_size_empty));
    const bool own = train || !s.eval_batch_size;
    const auto b = own ? s.batch_size : s.eval_batch_size;
    if (!b)
      throw InputError(fmt::format(
          "{}: no {} batch size: set {} in the file or pass --batch-size{}", s.file,
          train ? "training" : "eval",
          train ? "trainer.fit.train_dataloader.batch_size (or train_input.batch_size)"
                : "trainer.fit.val_dataloader.batch_size (or trainer.validate.val_dataloader's, "
                  "or eval_input.batch_size)",
          train ? s.batch_size_hint : ""));
    if (!s.batch_size_per_system) return {*b, own ? s.batch_size_where : s.eval_batch_size_where};
    if (*b > std::numeric_limits<std::int64_t>::max() / job.num_csx)
      throw InputError(fmt::format("{}: batch_size {} per system x num_csx {} overflows", s.file,
                                   *b, job.num_csx));
    return {*b * job.num_csx, ""};
  };
  // train_and_eval with one --batch-size: eval keeps the file's eval batch if it has one.
  const auto batch_for = [&](bool train) -> FileBatch {
    if (o.batch_size && (train || mode != io::Mode::kTrainAndEval || !s.eval_batch_size))
      return {*o.batch_size, o.batch_size_where};
    return file_batch(train);
  };
  const auto mbs_for = [&](bool train) {
    return mbs_setting(o.micro_batch_size, train ? s.train_mbs : s.eval_mbs);
  };
  if (mode != io::Mode::kEval)
    job.passes.push_back(
        {model::Pass::kTrain, batch_for(true).samples, mbs_for(true).setting, {}, {}, 0, {}, 0});
  if (mode != io::Mode::kTrain)
    job.passes.push_back(
        {model::Pass::kEval, batch_for(false).samples, mbs_for(false).setting, {}, {}, 0, {}, 0});
  for (auto& p : job.passes) set_input_rate(job, p);
  // A step's tokens, batch_size x seq_len, are a 64-bit count held exactly in a double.
  for (const auto& p : job.passes)
    if (static_cast<double>(p.batch_size) * static_cast<double>(s.model.seq_len) > 0x1p53)
      throw InputError(fmt::format(
          "batch_size {} x seq_len {} = {:.3g} tokens per step: more than 2^53 (9.0e15)",
          p.batch_size, s.model.seq_len,
          static_cast<double>(p.batch_size) * static_cast<double>(s.model.seq_len)));
  if (o.tokens) job.training_steps = steps_for_tokens(*o.tokens, job, o.tokens_text);
  // One cap on the training length, however it is given (--steps, --tokens, max_steps).
  if (job.training_steps && static_cast<double>(*job.training_steps) > kMaxTrainingSteps)
    throw InputError(fmt::format("{} = {}: at most {:g} training steps",
                                 o.training_steps ? "--steps"
                                 : o.tokens       ? "the steps of --tokens"
                                                  : "the file's num_steps or max_steps",
                                 *job.training_steps, kMaxTrainingSteps));
  // Training steps give a time to train; a run that only evaluates has none.
  if (o.training_steps && mode == io::Mode::kEval)
    throw InputError(
        fmt::format("--steps = {}: training steps are for a time to train; this run only evaluates "
                    "(--mode eval)",
                    *o.training_steps));
  // Resolve the rules now, once, so bad input fails before any simulation; name where the
  // setting came from.
  for (auto& p : job.passes) {
    const bool train = p.pass == model::Pass::kTrain;
    const std::string where = mbs_for(train).where;
    // The batch's and num_csx's sources name the split's errors (a refusal stays a RuleError).
    const std::string at = batch_for(train).where;
    const auto located = [&](const std::exception& e) {
      return fmt::format("{}{}{}", at.empty() ? "" : at + ": ", e.what(),
                         csx_from.empty() ? "" : " (num_csx: " + csx_from + ")");
    };
    try {
      p.split = batching::split_batch(p.batch_size, job.num_csx);
    } catch (const RuleError& e) {
      throw RuleError(located(e));
    } catch (const InputError& e) {
      throw InputError(located(e));
    }
    // The setting's source and the pass name the rules' errors, as the same kind.
    const auto in_pass = [&](const std::exception& e) {
      const char* pass = train ? "training" : "eval";
      return where.empty() ? fmt::format("{} pass: {}", pass, e.what())
                           : fmt::format("{}: {} pass: {}", where, pass, e.what());
    };
    try {
      p.resolution = batching::resolve(
          p.setting, p.split, {s.model.label, s.model.transformer(), s.model.batch_norm()},
          job.scenario.compile_only, o.max_explore.value_or(batching::kMaxExploreCandidates));
    } catch (const RuleError& e) {
      throw RuleError(in_pass(e));
    } catch (const InputError& e) {  // --max-explore's
      throw InputError(in_pass(e));
    }
  }
  return job;
}

const std::string& data_processor(const io::Scenario& s, model::Pass pass) {
  return pass == model::Pass::kTrain ? s.train_data_processor : s.eval_data_processor;
}

std::int64_t input_processes_per_worker(const io::Scenario& s, model::Pass pass) {
  return pass == model::Pass::kTrain ? s.input_processes_per_worker
                                     : s.input_eval_processes_per_worker;
}

double input_samples_per_csx(const io::Scenario& s, const Job::Pass& p) {
  return p.input_samples_per_s * static_cast<double>(input_processes_per_worker(s, p.pass)) *
         static_cast<double>(s.input_workers_per_csx);
}

namespace {

// A trace holds one track per CS-X up to kTracedSystems; beyond, the fullest one (and those
// --trace-systems picks).
bool representative_trace(const Job& job) {
  return job.num_csx > engine::kTracedSystems;
}

}  // namespace

search::SearchRequest search_request(const Job& job, const Job::Pass& p) {
  search::SearchRequest req;
  req.resolution = p.resolution;
  req.split = p.split;
  req.traits = {job.scenario.model.label, job.scenario.model.transformer(),
                job.scenario.model.batch_norm()};
  req.costs = job.costs;
  req.platform = job.platform;
  req.pass = p.pass;
  req.seq_len = job.scenario.model.seq_len;
  req.simulated_steps = job.scenario.simulated_steps;
  req.record_trace = job.record_trace;
  req.trace_max_events = job.trace_max_events;
  req.traced_systems = representative_trace(job) ? 1 : job.num_csx;
  req.auto_min_speedup = job.scenario.auto_min_speedup;
  req.interval = job.interval;
  req.input_samples_per_s = input_samples_per_csx(job.scenario, p);
  req.chosen_only = job.chosen_only;
  req.interval.input_log_sd = p.input_log_sd;
  return req;
}

std::vector<PassResult> run_job(const Job& job) {
  std::vector<PassResult> results;
  for (const auto& p : job.passes) {
    const auto req = search_request(job, p);
    PassResult r;
    r.outcome = search::run_search(
        req, [&job](const std::vector<engine::SimulationInput>& in, bool record_trace) {
          engine::Options options;
          if (record_trace) {
            options.record_trace = true;
            options.representative = representative_trace(job);
            if (options.representative) options.shown_systems = job.trace_systems;
          }
          return engine::simulate_all(in, options, job.simulation_processes);
        });
    r.context.model = job.scenario.model.label;
    r.context.platform = job.platform_label;
    r.context.overrides = job.overrides_text;
    r.context.seq_len = job.scenario.model.seq_len;
    r.context.shard = job.shard;
    r.context.grid = job.grid;
    r.context.pass = p.pass;
    r.context.num_csx = job.num_csx;
    r.context.batch_size = p.batch_size;
    r.context.per_system_batch_size = p.split.per_system_batch_size;
    r.context.requested_micro_batch_size = batching::to_string(p.setting);
    r.context.training_steps = job.training_steps;
    r.notice = p.resolution.notice;
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace csx::app
