// `csxsim validate`: simulates every measured run of a reference file and reports the error.
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/run_job.hpp"
#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/results_csv.hpp"
#include "io/yaml_block.hpp"
#include "model/model_loader.hpp"

namespace csx::cli {
namespace {

const std::vector<std::string> kEntryKeys{"name", "model", "platform", "num_csx", "batch_size",
                                          "seq_len", "mode", "micro_batch_size", "samples_per_s",
                                          "source", "expected_micro_batch_size", "tried"};

struct Entry {
  std::string name, model, platform, source, mode;
  std::int64_t num_csx = 1, batch_size = 1, seq_len = 0;
  batching::MbsSetting setting;
  double samples_per_s = 0;                  // measurements
  std::int64_t expected_micro_batch_size = 0;  // auto decisions
  std::vector<std::int64_t> tried;
};

Entry read_entry(const io::Block& b, bool decision) {
  b.require_known_keys(kEntryKeys);
  Entry e;
  e.name = b.get_string("name");
  e.model = b.get_string("model");
  e.platform = b.get_string("platform");
  e.source = b.get_string("source");
  e.mode = b.get_choice("mode", {"train", "eval"}, "train");
  e.num_csx = b.get_int("num_csx");
  e.batch_size = b.get_int("batch_size");
  e.seq_len = b.get_int("seq_len");
  e.setting = b.has("micro_batch_size")
                  ? io::parse_mbs_node(b.node()["micro_batch_size"], b.where("micro_batch_size"))
                  : batching::MbsSetting{batching::MbsAuto{}};
  if (decision) {
    e.expected_micro_batch_size = b.get_int("expected_micro_batch_size");
    if (b.has_value("tried"))
      for (const auto& v : b.node()["tried"])
        e.tried.push_back(io::parse_int_scalar(v.Scalar(), b.where("tried"), 1));
  } else {
    e.samples_per_s = b.get_number("samples_per_s", 1e-9, 1e12);
  }
  return e;
}

std::vector<Entry> read_list(const io::Block& root, const std::string& key, bool decision) {
  std::vector<Entry> out;
  if (!root.has_value(key)) return out;
  const YAML::Node list = root.node()[key];
  if (!list.IsSequence())
    throw InputError(fmt::format("{}: expected a list of entries", root.where(key)));
  for (std::size_t i = 0; i < list.size(); ++i)
    out.push_back(read_entry(io::Block(root.file(), fmt::format("{}[{}]", key, i), list[i]),
                             decision));
  return out;
}

// Runs one entry as `csxsim run` would.
PassResult simulate_entry(const Entry& e, const std::string& reference, const Overrides& base) {
  namespace fs = std::filesystem;
  std::string path = (fs::path(data_dir()) / e.model).string();
  if (!fs::exists(path)) path = (fs::path(reference).parent_path() / e.model).string();
  io::Scenario s;
  s.file = reference;
  s.model = model::load_model(path, e.seq_len);
  s.platform = e.platform;
  s.mode = e.mode == "eval" ? io::Mode::kEval : io::Mode::kTrain;
  Overrides o = base;
  o.num_csx = e.num_csx;
  o.batch_size = e.batch_size;
  o.micro_batch_size = e.setting;
  // KEY=VALUE applies to every platform; PLATFORM:KEY=VALUE to that platform only.
  o.platform_overrides.clear();
  for (const auto& [key, value] : base.platform_overrides) {
    const auto colon = key.find(':');
    if (colon == std::string::npos) o.platform_overrides.emplace_back(key, value);
    else if (key.substr(0, colon) == e.platform)
      o.platform_overrides.emplace_back(key.substr(colon + 1), value);
  }
  const Job job = make_job(s, o, data_dir());
  auto results = run_job(job);
  if (!results.front().outcome.chosen)
    throw InfeasibleError(fmt::format("{}: entry {}: no micro_batch_size fits", reference, e.name));
  return results.front();
}

}  // namespace

int validate_command(const Args& args) {
  po::options_description desc("validate options");
  std::string reference = (std::filesystem::path(data_dir()) / "tests/data/measurements.yaml").string();
  desc.add_options()
      ("reference", po::value(&reference), "measurements file (default tests/data/measurements.yaml)")
      ("platform-override", po::value<std::vector<std::string>>()->composing(),
       "[PLATFORM:]KEY=VALUE, e.g. cs2:calibration.kernel_overhead_s=0.002 (repeatable)")
      ("csv", po::value<std::string>(), "write one row per entry to this CSV file")
      ("only-platform", po::value<std::string>(), "simulate only the entries of this platform");
  const auto vm = parse_options(
      args, "csxsim validate [--reference FILE] [--platform-override KEY=VALUE ...] [--csv FILE]",
      desc);
  if (!vm) return 0;
  const bool want_csv = vm->count("csv") > 0;
  const std::string csv = want_csv ? (*vm)["csv"].as<std::string>() : "";
  if (want_csv) io::check_output_path(csv, "--csv", {reference});
  Overrides base;
  if (vm->count("platform-override"))
    for (const auto& kv : (*vm)["platform-override"].as<std::vector<std::string>>()) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos)
        throw InputError(fmt::format("--platform-override {}: expected KEY=VALUE", kv));
      base.platform_overrides.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
  const io::Block root(reference, "", io::load_yaml_file(reference));
  root.require_known_keys({"measurements", "auto_decisions"});
  auto measurements = read_list(root, "measurements", false);
  auto decisions = read_list(root, "auto_decisions", true);
  if (vm->count("only-platform")) {
    const auto only = (*vm)["only-platform"].as<std::string>();
    std::erase_if(measurements, [&](const Entry& e) { return e.platform != only; });
    std::erase_if(decisions, [&](const Entry& e) { return e.platform != only; });
  }

  if (measurements.empty() && decisions.empty())
    throw InputError(fmt::format("{}: no entries to validate{}", reference,
                                 vm->count("only-platform")
                                     ? fmt::format(" for platform '{}'",
                                                   (*vm)["only-platform"].as<std::string>())
                                     : std::string()));
  for (const auto& [key, value] : base.platform_overrides) {
    const auto colon = key.find(':');
    if (colon == std::string::npos) continue;
    const std::string p = key.substr(0, colon);
    bool used = false;
    for (const auto& e : measurements) used = used || e.platform == p;
    for (const auto& e : decisions) used = used || e.platform == p;
    if (!used)
      throw InputError(fmt::format("--platform-override {}={}: no entry runs on platform '{}'{}",
                                   key, value, p, did_you_mean(p, {"cs2", "cs3"})));
  }
  fmt::print("{:<24} {:<5} {:>4} {:>6} {:>6} {:>12} {:>12} {:>8} {:>17}\n", "entry", "plat", "N",
             "batch", "MBS", "measured/s", "simulated/s", "error", "bound");
  std::string text =
      "name,model,platform,num_csx,batch_size,micro_batch_size,measured_samples_per_s,"
      "simulated_samples_per_s,error_pct,bound\n";
  double sum_abs = 0, worst = 0;
  std::string worst_name;
  for (const auto& e : measurements) {
    const auto r = simulate_entry(e, reference, base);
    const auto& c = r.outcome.rows[*r.outcome.chosen];
    const double err = 100 * (c.samples_per_s / e.samples_per_s - 1);
    sum_abs += std::fabs(err);
    if (std::fabs(err) >= std::fabs(worst)) {
      worst = err;
      worst_name = e.name;
    }
    fmt::print("{:<24} {:<5} {:>4} {:>6} {:>6} {:>12.2f} {:>12.2f} {:>+7.1f}% {:>17}\n", e.name,
               e.platform, e.num_csx, e.batch_size, c.micro_batch_size, e.samples_per_s,
               c.samples_per_s, err, c.sim.bound);
    text += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", io::csv_field(e.name),
                        io::csv_field(e.model), e.platform, e.num_csx, e.batch_size,
                        c.micro_batch_size, io::csv_number(e.samples_per_s),
                        io::csv_number(c.samples_per_s), io::csv_number(err), c.sim.bound);
  }
  if (!measurements.empty())
    fmt::print("\nMAPE {:.1f}% over {} entries; largest error {:+.1f}% ({})\n",
               sum_abs / static_cast<double>(measurements.size()), measurements.size(), worst,
               worst_name);
  int mismatches = 0;
  for (const auto& e : decisions) {
    const auto r = simulate_entry(e, reference, base);
    const auto& c = r.outcome.rows[*r.outcome.chosen];
    std::vector<std::int64_t> evaluated;
    for (const auto& row : r.outcome.rows) evaluated.push_back(row.micro_batch_size);
    const bool match = c.micro_batch_size == e.expected_micro_batch_size;
    mismatches += match ? 0 : 1;
    fmt::print("auto decision {}: {} (expected {}, simulated {}; evaluated {}; the real stack "
               "tried {})\n",
               e.name, match ? "matches" : "DOES NOT MATCH", e.expected_micro_batch_size,
               c.micro_batch_size, fmt::join(evaluated, ", "), fmt::join(e.tried, ", "));
    fmt::print("  {}\n", r.outcome.decision);
  }
  if (want_csv) io::write_file_atomically(csv, text);
  return 0;
}

}  // namespace csx::cli
