// validate's checks of the reference file (docs/calibration.md#accuracy): measured runs of current
// and older releases, what the real `auto` chose, micro-batch sizes that compiled on real hardware,
// and which MBS real hardware preferred (the calibration fit: app/cross_validation.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/job.hpp"
#include "batching/mbs_setting.hpp"
#include "model/memory_model.hpp"
#include "search/search.hpp"

namespace csx::app {

// One entry of a list of the reference file.
struct Entry {
  std::string name, model, platform, source, release, mode = "train";
  std::int64_t num_csx = 1, batch_size = 1;  // batch_size: global, samples
  std::optional<std::int64_t> seq_len;       // tokens
  batching::MbsSetting setting = batching::MbsAuto{};
  double samples_per_s = 0;  // measurements
  std::string expected;      // auto decisions: a size, or "smaller"
  std::vector<std::int64_t> tried;
  std::int64_t micro_batch_size = 0;  // memory facts
  std::int64_t preferred = 0;         // preferences
  std::string reason;                 // input-bound measurements: the evidence
  std::string unexplained;            // measured runs the model misses: the hypothesis
};

// The reference's lists by key: measurements, input_bound_measurements, older_measurements,
// auto_decisions, memory_facts, preferences (each present, maybe empty).
using ReferenceLists = std::map<std::string, std::vector<Entry>>;

// Which entries to check: measured runs named in `only` (comma-separated; implies
// measurements_only), those of platform `only_platform`, measured runs only.
struct Selection {
  std::optional<std::string> only;
  std::optional<std::string> only_platform;
  bool measurements_only = false;
};

// Where the checks run: the reference file, the platform overrides of every entry
// ("[PLATFORM:]KEY=VALUE"), and the data folder (docs/cli.md#data-folder) whose models/ the
// entries' model paths are relative to (else to the reference).
struct ValidationSetup {
  std::string reference;
  Overrides base;
  std::string data_dir;
};

// Reads and filters the reference's lists. Throws InputError naming the file, key and value
// (unknown keys, a name twice, a missing models/ file, a selection with no entry, an --only name
// that no measured run has, an override for a platform no selected entry runs on).
[[nodiscard]] ReferenceLists read_reference(const ValidationSetup& setup, const Selection& select);

// The file of an entry's model: relative to the data folder, else to the reference file.
[[nodiscard]] std::string model_path(const Entry& e, const ValidationSetup& setup);

// A measured run simulated as `csxsim run` would: the chosen candidate against the measured
// rate; error_pct = 100 x (simulated / measured - 1).
struct MeasurementCheck {
  std::string family;  // the model's family (ModelSpec::name)
  search::CandidateResult chosen;
  double error_pct = 0;
  bool at_least_measured = false;  // simulated >= measured (input-bound runs must be)
  std::int64_t seq_len = 0;        // tokens per sample simulated (the entry's, else the model's)
  // With `input_fed`, when the model file's train dataloader names a data processor whose rate
  // the platform gives (io::kImageNetProcessor): the run simulated with its input workers at
  // that rate, and its error against the measured rate.
  std::optional<search::CandidateResult> fed;
  double fed_error_pct = 0;         // percent: 100 x (fed rate / measured - 1)
  double fed_rate_per_process = 0;  // that rate, samples/s of one dataloader process (0: none)
};
// The run simulated as its compute allows (no input workers, as the fit wants), and with
// `input_fed` also as above. Throws InfeasibleError when no micro_batch_size fits, InputError /
// RuleError for bad input.
[[nodiscard]] MeasurementCheck check_measurement(const Entry& e, const ValidationSetup& setup,
                                                 bool input_fed = false);

// The mean absolute error of a group of measured runs, and the largest error with its run.
struct ErrorSummary {
  double sum_abs = 0, worst = 0;  // percent
  std::string worst_name;
  std::size_t n = 0;
  void add(double error_pct, const std::string& name);
  [[nodiscard]] double mape() const { return sum_abs / static_cast<double>(n); }
};

// What `auto` chose for an auto decision, against what the real stack chose.
struct DecisionCheck {
  std::int64_t chosen = 0;              // the simulated choice (MBS)
  std::int64_t per_system_batch = 0;    // P
  std::vector<std::int64_t> evaluated;  // the MBS of every row
  std::string decision;                 // how the choice was made
  bool matches = false;
};
// Throws as check_measurement.
[[nodiscard]] DecisionCheck check_decision(const Entry& e, const ValidationSetup& setup);

// Whether a micro-batch size that compiled fits on chip; `skipped` when its model file (a Model
// Zoo file outside the repository) is absent.
struct MemoryCheck {
  bool skipped = false;
  model::MemoryBreakdown memory;
};
// Throws InputError for a malformed model file or platform override.
[[nodiscard]] MemoryCheck check_memory_fact(const Entry& e, const ValidationSetup& setup);

// Where the preferred MBS ranks among the simulated candidates (explore, compile-only), by step
// time; rank empty when it is not a fitting candidate.
struct PreferenceCheck {
  std::optional<std::size_t> rank;  // 1 for the fastest
  std::size_t candidates = 0;
  double slower_pct = 0;  // than the fastest
  std::int64_t fastest = 0;
};
// Throws as check_measurement.
[[nodiscard]] PreferenceCheck check_preference(const Entry& e, const ValidationSetup& setup);

}  // namespace csx::app
