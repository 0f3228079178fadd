// Sweep CSVs: grouping by grid point, reading back for resume and merge.
#include "app/sweep_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <stdexcept>
#include <tuple>
#include <variant>

#include "common/errors.hpp"
#include "common/whole_number.hpp"
#include "input/value_list.hpp"
#include "report/csv_reader.hpp"
#include "report/results_csv.hpp"
#include "report/results_schema.hpp"

namespace csx::app {

namespace {

const std::size_t kModel = io::csv_column("model"), kPlatform = io::csv_column("platform"),
                  kMode = io::csv_column("mode"), kNumCsx = io::csv_column("num_csx"),
                  kBatch = io::csv_column("batch_size"),
                  kRequested = io::csv_column("requested_micro_batch_size"),
                  kShard = io::csv_column("shard"), kGrid = io::csv_column("grid"),
                  kSeqLen = io::csv_column("seq_len"), kOverrides = io::csv_column("overrides"),
                  kFits = io::csv_column("fits"), kChosen = io::csv_column("chosen"),
                  kStepTime = io::csv_column("step_time_s"),
                  kSamplesPerS = io::csv_column("samples_per_s"), kMfu = io::csv_column("mfu"),
                  kMbs = io::csv_column("micro_batch_size"), kBound = io::csv_column("bound"),
                  kMemory = io::csv_column("mem_total_bytes"),
                  kInputRate = io::csv_column("input_samples_per_s_per_csx");

// A field as the CSV writes it ("" for null).
std::string text(const io::Record& f, std::size_t column) {
  return io::field_text(f[column]);
}

// One CSV record's fields (as many as the columns) as values of their columns' types.
io::Record parse_record(const std::vector<std::string>& fields, const std::string& where) {
  const auto& types = io::candidate_columns();
  io::Record row;
  row.reserve(types.size());
  for (std::size_t i = 0; i < types.size(); ++i)
    row.push_back(io::parse_field(types[i], fields[i], where));
  return row;
}

// What run and sweep write of every candidate: fits and chosen set; a fitting candidate
// simulated (positive, finite step time and rate, an MFU and a bound); only a fitting one
// chosen. Throws InputError naming the record and column (the file was edited).
void check_row(const io::Record& row, const std::string& where) {
  const auto& columns = io::candidate_columns();
  const auto refuse = [&](std::size_t column, const char* rule) {
    throw InputError(fmt::format("{}: column {} = '{}': {} (the file was edited)", where,
                                 columns[column].name, io::field_text(row[column]), rule));
  };
  for (const auto column : {kFits, kChosen})
    if (row[column] == io::Value()) refuse(column, "every row says true or false");
  if (row[kMbs] == io::Value()) refuse(kMbs, "every row is a candidate micro_batch_size");
  if (row[kFits] != io::Value(true)) {
    if (row[kChosen] == io::Value(true))
      refuse(kChosen, "a candidate that does not fit is never chosen");
    return;
  }
  for (const auto column : {kStepTime, kSamplesPerS, kMfu}) {
    const auto* v = std::get_if<double>(&row[column]);
    if (v == nullptr || !std::isfinite(*v) || *v < 0 || (*v == 0 && column != kMfu))
      refuse(column, "a fitting candidate is simulated: a positive, finite number");
  }
  if (row[kBound] == io::Value()) refuse(kBound, "a fitting candidate names its bound");
  const auto* memory = std::get_if<double>(&row[kMemory]);
  if (memory == nullptr || !std::isfinite(*memory) || *memory <= 0)
    refuse(kMemory, "a fitting candidate has its memory: a positive, finite number");
}

}  // namespace

std::string describe(const PointKey& key) {
  return fmt::format("{}, num_csx {}, batch_size {}", key.platform, key.num_csx, key.batch_size);
}

std::string SweepTable::render() const {
  std::string out = io::csv_header();
  for (const auto& [key, lines] : points) out += lines;
  return out;
}

std::vector<io::Record> parse_rows(const std::string& lines, const std::string& where) {
  const auto columns = io::candidate_columns().size();
  std::vector<io::Record> rows;
  for (const auto& fields : io::parse_csv(lines, where)) {
    if (fields.size() == 1 && fields[0].empty()) continue;
    if (fields.size() != columns)
      throw InputError(
          fmt::format("{}: a row of {} fields, expected {}", where, fields.size(), columns));
    rows.push_back(parse_record(fields, where));
  }
  return rows;
}

std::vector<io::Record> SweepTable::records() const {
  std::vector<io::Record> out;
  for (const auto& [key, lines] : points) {
    auto rows = parse_rows(lines, describe(key));
    out.insert(out.end(), std::make_move_iterator(rows.begin()),
               std::make_move_iterator(rows.end()));
  }
  return out;
}

SweepTable read_results_csv(const std::string& path, bool clear_shard) {
  const auto records = io::read_csv_file(path);
  const auto& columns = io::csv_columns();
  if (records.empty() || records.front() != columns)
    throw InputError(
        fmt::format("{}: not a csxsim CSV of this version (the first line must be the header "
                    "run and sweep write: {} columns, {} ... {})",
                    path, columns.size(), columns.front(), columns.back()));
  SweepTable table;
  std::map<std::pair<PointKey, std::string>, std::pair<bool, bool>> complete;  // fits, chosen
  std::set<std::tuple<PointKey, std::string, std::string>> candidates;         // point, mode, MBS
  for (std::size_t n = 1; n < records.size(); ++n) {
    auto fields = records[n];
    if (fields.size() == 1 && fields[0].empty()) continue;
    if (fields.size() != columns.size())
      throw InputError(fmt::format("{}: record {}: {} fields, expected {}", path, n + 1,
                                   fields.size(), columns.size()));
    const std::string record_where = fmt::format("{}: record {}", path, n + 1);
    const auto where = [&](const char* what) { return fmt::format("{}: {}", record_where, what); };
    const PointKey key{fields[kPlatform], csx::parse_whole(fields[kNumCsx], where("num_csx"), 1),
                       csx::parse_whole(fields[kBatch], where("batch_size"), 1)};
    if (!fields[kShard].empty()) try {
        (void)io::parse_shard(fields[kShard]);
      } catch (const InputError& e) {
        throw InputError(fmt::format("{}: {}", where("shard"), e.what()));
      }
    // A sharded sweep's grid is INPUTS.LAYOUT (app::grid_identity), an unsharded one's INPUTS.
    const auto dot = fields[kGrid].find('.');
    if (fields[kShard].empty() != (dot == std::string::npos))
      throw InputError(fmt::format(
          "{}: {}: a sharded sweep's rows have a shard and a grid of two hashes, other sweeps' "
          "a grid of one",
          where("shard and grid"),
          fields[kShard].empty()  ? "a sharded grid without a shard"
          : fields[kGrid].empty() ? "a shard without its grid"
                                  : "a shard's grid of one hash, as csxsim wrote it before "
                                    "2026-12: run the shard again with this csxsim"));
    table.shards.insert(fields[kShard]);
    if (!fields[kGrid].empty()) table.grids.insert(fields[kGrid]);
    table.rows_without_grid = table.rows_without_grid || fields[kGrid].empty();
    if (clear_shard && dot != std::string::npos) {
      fields[kShard].clear();
      fields[kGrid].resize(dot);
    }
    const io::Record row = parse_record(fields, record_where);
    check_row(row, record_where);
    if (!candidates.insert({key, fields[kMode], fields[kMbs]}).second)
      throw InputError(fmt::format(
          "{}: micro_batch_size {} of point {} ({}) is in an earlier row too (the file was edited)",
          record_where, fields[kMbs], describe(key), fields[kMode]));
    auto& [fits, chosen] = complete[{key, fields[kMode]}];
    if (chosen && row[kChosen] == io::Value(true))
      throw InputError(fmt::format(
          "{}: a second chosen row of point {} ({}): a pass has one (the file was edited)",
          record_where, describe(key), fields[kMode]));
    fits = fits || row[kFits] == io::Value(true);
    chosen = chosen || row[kChosen] == io::Value(true);
    table.points[key] += io::csv_line(row);
  }
  // A point whose candidates fit has its chosen row: one without it was cut short.
  for (const auto& [point, flags] : complete)
    if (flags.first && !flags.second)
      throw InputError(fmt::format(
          "{}: point {} ({}) has candidates that fit but no chosen row: the file was cut short "
          "or edited",
          path, describe(point.first), point.second));
  return table;
}

void merge_points(SweepTable part, SweepTable& into, const std::string& path) {
  for (auto& [key, text] : part.points) {
    if (into.points.count(key))
      throw InputError(
          fmt::format("{}: point {} is already in another input", path, describe(key)));
    into.points.emplace(key, std::move(text));
  }
  into.shards.insert(part.shards.begin(), part.shards.end());
  into.grids.insert(part.grids.begin(), part.grids.end());
  into.rows_without_grid = into.rows_without_grid || part.rows_without_grid;
}

void check_shards_complete(const std::set<std::string>& shards, std::size_t empty_inputs) {
  std::set<std::int64_t> counts, present;
  bool unsharded = false;
  for (const auto& s : shards) {
    if (s.empty()) {
      unsharded = true;
      continue;
    }
    const auto [i, n] = io::parse_shard(s);
    counts.insert(n);
    present.insert(i);
  }
  if (counts.empty()) return;
  if (counts.size() > 1 || unsharded) {
    std::vector<std::string> names;  // an unsharded input has an empty shard
    for (const auto& s : shards) names.push_back(s.empty() ? "an unsharded sweep" : s);
    throw InputError(
        fmt::format("the inputs mix shards of different sweeps ({}): merge the shards of one sweep",
                    fmt::join(names, ", ")));
  }
  const auto n = *counts.begin();
  std::vector<std::string> missing;
  // Empty shards are the last ones (round-robin dealing): above the highest present shard.
  const std::int64_t top = present.empty() ? -1 : *present.rbegin();
  const auto empty_ones =
      std::min<std::int64_t>(static_cast<std::int64_t>(empty_inputs), n - 1 - top);
  for (std::int64_t i = 0; i < n - empty_ones; ++i)
    if (!present.count(i)) missing.push_back(fmt::format("{}/{}", i, n));
  if (!missing.empty())
    throw InputError(fmt::format(
        "shard {} of the sweep {} missing (or every point of {} was refused): pass every "
        "shard's CSV",
        fmt::join(missing, ", "), missing.size() == 1 ? "is" : "are",
        missing.size() == 1 ? "it" : "them"));
}

void SweepTable::for_each_row(
    const std::function<bool(const PointKey&, const io::Record&)>& f) const {
  for (const auto& [key, lines] : points)
    for (const auto& r : parse_rows(lines, describe(key)))
      if (!f(key, r)) return;
}

void check_identity(const SweepTable& t, SweepIdentity& id, const std::string& path) {
  const auto in = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  t.for_each_row([&](const PointKey& key, const io::Record& r) {
    const auto f = [&](std::size_t column) { return text(r, column); };
    if (f(kModel) != id.model || f(kSeqLen) != id.seq_len || !in(id.requested, f(kRequested)) ||
        (!id.modes.empty() && !in(id.modes, f(kMode))))
      throw InputError(fmt::format(
          "{}: point {} is from another run or sweep (model {}, seq_len {}, mode {}, "
          "micro_batch_size {}; expected {}, {}, {}, {}): one CSV holds the results of one "
          "setting",
          path, describe(key), f(kModel), f(kSeqLen), f(kMode), f(kRequested), id.model, id.seq_len,
          fmt::join(id.modes, " and "), id.requested.empty() ? "" : id.requested.front()));
    const auto [it, added] = id.overrides.emplace(key.platform, f(kOverrides));
    if (it->second != f(kOverrides))
      throw InputError(fmt::format(
          "{}: point {} has platform overrides '{}' where this sweep (or the other rows of {}) "
          "has '{}': results of different platform settings under one name",
          path, describe(key), f(kOverrides), key.platform, it->second));
    // A simulated row's input rate per CS-X (empty: not simulated) is the sweep's, per platform
    // label and pass.
    if (!f(kStepTime).empty()) {
      const double rate = f(kInputRate).empty() ? 0.0 : std::stod(f(kInputRate));
      const auto [known, first] = id.input.emplace(input_key(key.platform, f(kMode)), rate);
      // The CSV keeps 9 significant digits: a rate that rounds alike is the same.
      if (std::abs(known->second - rate) > 1e-8 * std::max(known->second, rate)) {
        const auto shown = [](double v) {
          return v > 0 ? fmt::format("{:.9g} samples/s per CS-X", v) : std::string("none");
        };
        throw InputError(fmt::format(
            "{}: point {} was simulated with input {} where this sweep (or the file's other "
            "rows of {}) has {}: results of different input rates (--input-rate, or a "
            "platform's input_workers) under one platform label",
            path, describe(key), shown(rate), key.platform, shown(known->second)));
      }
    }
    return true;
  });
}

SweepIdentity identity_of(const SweepTable& t) {
  SweepIdentity id;
  if (t.points.empty()) return id;
  const PointKey first = t.points.begin()->first;  // the first point tells the sweep
  t.for_each_row([&](const PointKey& key, const io::Record& r) {
    if (key != first) return false;
    id.model = text(r, kModel);
    id.seq_len = text(r, kSeqLen);
    const auto requested = text(r, kRequested), mode = text(r, kMode);
    if (std::find(id.requested.begin(), id.requested.end(), requested) == id.requested.end())
      id.requested.push_back(requested);
    if (std::find(id.modes.begin(), id.modes.end(), mode) == id.modes.end())
      id.modes.push_back(mode);
    return true;
  });
  return id;
}

}  // namespace csx::app
