// CSV records through libcsv's callbacks.
#include "report/csv_reader.hpp"

#include <csv.h>
#include <fmt/format.h>
#include <fstream>
#include <memory>
#include <sstream>

#include "common/errors.hpp"
#include "common/input_file.hpp"

namespace csx::io {
namespace {

struct Records {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> current;
};

extern "C" void on_field(void* data, std::size_t len, void* out) {
  static_cast<Records*>(out)->current.emplace_back(static_cast<const char*>(data), len);
}

extern "C" void on_record(int, void* out) {
  auto* r = static_cast<Records*>(out);
  r->rows.push_back(std::move(r->current));
  r->current.clear();
}

}  // namespace

std::vector<std::vector<std::string>> parse_csv(const std::string& text, const std::string& where) {
  csv_parser parser{};
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0)
    throw std::runtime_error("libcsv: cannot initialise the parser");
  const std::unique_ptr<csv_parser, void (*)(csv_parser*)> guard(&parser, csv_free);
  Records r;
  const auto fail = [&]() {
    // Records are counted from 1, blank lines not included.
    throw InputError(fmt::format("{}: malformed CSV in record {}: {}", where, r.rows.size() + 1,
                                 csv_strerror(csv_error(&parser))));
  };
  if (csv_parse(&parser, text.data(), text.size(), on_field, on_record, &r) != text.size()) fail();
  if (csv_fini(&parser, on_field, on_record, &r) != 0) fail();
  return std::move(r.rows);
}

std::vector<std::vector<std::string>> read_csv_file(const std::string& path) {
  // A sweep of 100,000 points of 50 candidates is about 2 GB; beyond, not a csxsim CSV.
  check_input_file(path, "CSV", std::uintmax_t{4} << 30);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot be read", path));
  std::ostringstream text;
  text << in.rdbuf();
  // A UTF-8 byte order mark (a spreadsheet's "CSV UTF-8") is not part of the first field; the
  // YAML reader skips it too.
  std::string s = std::move(text).str();
  if (s.starts_with("\xEF\xBB\xBF")) s.erase(0, 3);
  return parse_csv(s, path);
}

}  // namespace csx::io
