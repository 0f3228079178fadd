// Validated YAML reads.
#include "input/yaml_block.hpp"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <regex>

#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "common/input_file.hpp"
#include "common/whole_number.hpp"

namespace csx::io {

namespace {

constexpr std::uintmax_t kMaxFileBytes = 16 << 20;

// Nodes a document may expand to through aliases: real configs have a few thousand; an alias
// bomb (a 300-byte file naming a node that names a node ...) has billions. Nesting deeper than
// kMaxDepth means a node that contains itself through an alias (real configs nest ~10 deep).
constexpr std::int64_t kMaxExpandedNodes = 200'000;
constexpr int kMaxDepth = 64;

// Counts the nodes walked and the depth, and refuses documents past either bound.
struct Walk {
  const std::string& path;
  std::int64_t visited = 0;
  void enter(int depth) {
    const bool deep = depth > kMaxDepth, many = ++visited > kMaxExpandedNodes;
    if (!deep && !many) return;
    throw InputError(fmt::format(
        "{}: {}; not a csxsim input", path,
        deep ? fmt::format("nests deeper than {} levels (csxsim inputs nest about 10 deep; an "
                           "alias that refers to itself nests without end)",
                           kMaxDepth)
             : fmt::format("holds more than {} YAML nodes, counting an alias's nodes each time "
                           "it is used (csxsim inputs hold a few thousand)",
                           kMaxExpandedNodes)));
  }
};

// How a map's repeated keys are read. yaml-cpp keeps the first of two equal keys, PyYAML (which
// the Cerebras stack reads Model Zoo files with) the last.
struct Duplicates {
  bool later_wins = false;                 // Model Zoo files: as PyYAML; else refuse
  std::vector<std::string> strict_blocks;  // top-level blocks that stay strict (ours)
  std::vector<std::string>* warnings = nullptr;
};

// Strict: refuses duplicates with different values (equal ones are harmless). Later wins: keeps
// the last of equal keys and warns when the values differ.
void resolve_duplicate_keys(YAML::Node n, Walk& walk, int depth, const Duplicates& rule,
                            bool strict) {
  walk.enter(depth);
  if (n.IsSequence()) {
    for (auto item : n) resolve_duplicate_keys(item, walk, depth + 1, rule, strict);
    return;
  }
  if (!n.IsMap()) return;
  std::map<std::string, std::vector<YAML::Node>> seen;  // key -> its key nodes, in order
  std::vector<std::string> order;                       // keys by first appearance
  for (const auto& kv : n)
    if (kv.first.IsScalar()) {
      auto& nodes = seen[kv.first.Scalar()];
      if (nodes.empty()) order.push_back(kv.first.Scalar());
      nodes.push_back(kv.first);
    }
  for (const auto& key : order) {
    const auto& nodes = seen[key];
    if (nodes.size() < 2) continue;
    const bool ours = depth == 0 && std::find(rule.strict_blocks.begin(), rule.strict_blocks.end(),
                                              key) != rule.strict_blocks.end();
    std::vector<std::string> values;
    for (const auto& kv : n)
      if (kv.first.IsScalar() && kv.first.Scalar() == key) values.push_back(YAML::Dump(kv.second));
    const bool differ = std::any_of(values.begin(), values.end(),
                                    [&](const std::string& v) { return v != values.front(); });
    const int first = nodes.front().Mark().line + 1, last = nodes.back().Mark().line + 1;
    if (differ && (strict || ours || !rule.later_wins))
      throw InputError(
          fmt::format("{}:{}: duplicate key '{}' (first on line {}) with a different value; {}",
                      walk.path, nodes[1].Mark().line + 1, key, first,
                      rule.later_wins ? "csxsim's own blocks take each key once"
                                      : "YAML readers disagree on which one wins"));
    if (differ && rule.warnings)
      rule.warnings->push_back(fmt::format(
          "{}:{}: duplicate key '{}' (also on line {}): the later value is used, as PyYAML "
          "(the Cerebras stack's YAML reader) reads it",
          walk.path, last, key, first));
    for (std::size_t i = 1; i < nodes.size(); ++i) n.remove(key);  // the first ones go
  }
  for (auto kv : n) {
    const bool ours = depth == 0 && kv.first.IsScalar() &&
                      std::find(rule.strict_blocks.begin(), rule.strict_blocks.end(),
                                kv.first.Scalar()) != rule.strict_blocks.end();
    resolve_duplicate_keys(kv.second, walk, depth + 1, rule, strict || ours);
  }
}

// YAML 1.1 merge keys ("<<: *base", "<<: [*a, *b]"), which Model Zoo files use and yaml-cpp
// leaves as an ordinary key: copy the merged maps' keys that the map does not set itself, after
// resolving the merged maps' own merge keys.
void apply_merge_keys(YAML::Node n, Walk& walk, int depth) {
  walk.enter(depth);
  if (n.IsSequence()) {
    for (auto item : n) apply_merge_keys(item, walk, depth + 1);
    return;
  }
  if (!n.IsMap()) return;
  if (n["<<"]) {
    YAML::Node sources = n["<<"];
    const int line = sources.Mark().line + 1;
    n.remove("<<");
    std::vector<YAML::Node> maps;
    if (sources.IsMap()) maps.push_back(sources);
    if (sources.IsSequence())
      for (const auto& m : sources) maps.push_back(m);
    if (maps.empty())
      throw InputError(fmt::format("{}:{}: a merge key (<<) must name a mapping", walk.path, line));
    for (auto& m : maps) {
      if (!m.IsMap())
        throw InputError(fmt::format("{}:{}: a merge key (<<) must name a mapping", walk.path,
                                     m.Mark().line + 1));
      apply_merge_keys(m, walk, depth + 1);
      for (const auto& kv : m)
        if (!n[kv.first.Scalar()]) n[kv.first.Scalar()] = kv.second;
    }
  }
  for (auto kv : n) apply_merge_keys(kv.second, walk, depth + 1);
}

// A NUL byte (a binary file, or text in UTF-16) makes yaml-cpp report an unrelated escape
// error: say what it is, where.
void reject_nul_byte(const std::string& path, const std::string& text) {
  const auto at = text.find('\0');
  if (at == std::string::npos) return;
  const auto line_start = text.rfind('\n', at);
  const auto col = line_start == std::string::npos ? at + 1 : at - line_start;
  throw InputError(fmt::format(
      "{}:{}:{}: a NUL byte (0x00); YAML is text and holds none "
      "(a binary file, or text saved as UTF-16?)",
      path, std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1,
      col));
}

// Line `line` (0-based) of `text`, without its newline; "" past the end.
std::string line_of(const std::string& text, int line) {
  std::size_t begin = 0;
  for (int i = 0; i < line; ++i) {
    begin = text.find('\n', begin);
    if (begin == std::string::npos) return "";
    ++begin;
  }
  const auto end = text.find('\n', begin);
  return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// yaml-cpp ends a quoted scalar at the end of the stream when its closing quote is missing
// (`b: "10` then the rest of the file read as part of the string); PyYAML, which the Cerebras
// stack reads configs with, refuses such a file ("while scanning a quoted scalar"). Each quoted
// scalar (tag "!") is followed from its opening quote in the file's text, with YAML's escapes
// (\" in double quotes, '' in single ones; YAML 1.2, sec. 7.3); one that reaches the end is
// refused where it opens.
void reject_unclosed_quotes(const YAML::Node& n, const std::string& text, Walk& walk, int depth) {
  walk.enter(depth);
  if (n.IsMap()) {
    for (const auto& kv : n) {
      reject_unclosed_quotes(kv.first, text, walk, depth + 1);
      reject_unclosed_quotes(kv.second, text, walk, depth + 1);
    }
    return;
  }
  if (n.IsSequence()) {
    for (const auto& item : n) reject_unclosed_quotes(item, text, walk, depth + 1);
    return;
  }
  if (!n.IsScalar() || n.Tag() != "!") return;
  const YAML::Mark m = n.Mark();
  if (m.pos < 0 || static_cast<std::size_t>(m.pos) >= text.size()) return;
  const char quote = text[static_cast<std::size_t>(m.pos)];
  if (quote != '"' && quote != '\'') return;
  for (std::size_t i = static_cast<std::size_t>(m.pos) + 1; i < text.size(); ++i) {
    if (quote == '"' && text[i] == '\\') {
      ++i;
    } else if (text[i] == quote) {
      if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;
        continue;
      }
      return;
    }
  }
  throw InputError(fmt::format(
      "{}:{}:{}: YAML syntax error: the quoted value opened here ({}) has no closing quote",
      walk.path, m.line + 1, m.column + 1, quote));
}

// A plain scalar in one of the integer forms YAML 1.1 adds to decimal (yaml.org/type/int.html),
// which PyYAML, the Cerebras stack's reader, resolves: '_' between digits (1_024), 0b binary,
// 0x hexadecimal, a leading 0 for octal (010 is 8) and base 60 (1:30 is 90). Its value; nullopt
// for any other text. Throws InputError naming `where` when the value passes 64 bits.
std::optional<std::int64_t> yaml11_int(const std::string& text, const std::string& where) {
  static const std::regex form(
      "[-+]?(0b[01_]+|0x[0-9a-fA-F_]+|0[0-7_]+|[1-9][0-9_]*(:[0-5]?[0-9])+"
      "|[1-9][0-9]*(_[0-9_]*)+)");
  if (!std::regex_match(text, form)) return std::nullopt;
  std::string digits;
  for (char c : text)
    if (c != '_') digits += c;
  const bool negative = digits.front() == '-';
  if (digits.front() == '-' || digits.front() == '+') digits.erase(0, 1);
  int base = 10;
  if (digits.rfind("0b", 0) == 0 || digits.rfind("0x", 0) == 0) {
    base = digits[1] == 'b' ? 2 : 16;
    digits.erase(0, 2);
  } else if (digits.size() > 1 && digits.front() == '0') {
    base = 8;
  }
  // Base 60: each ':'-separated part is one digit, the first the most significant.
  std::int64_t value = 0;
  bool overflow = false;
  for (std::size_t start = 0; start <= digits.size();) {
    const auto end = std::min(digits.find(':', start), digits.size());
    std::int64_t part = 0;
    const auto ec = std::from_chars(digits.data() + start, digits.data() + end, part, base).ec;
    if (ec == std::errc::invalid_argument) return std::nullopt;  // no digits: 0x_
    overflow = overflow || ec != std::errc{} || __builtin_mul_overflow(value, 60, &value) ||
               __builtin_add_overflow(value, part, &value);
    start = end + 1;
  }
  if (overflow)
    throw InputError(
        fmt::format("{} = {}: too large, it does not fit a 64-bit integer", where, text));
  return negative ? -value : value;
}

YAML::Node load_yaml(const std::string& path, const Duplicates& rule) {
  check_input_file(path, "YAML", kMaxFileBytes);
  std::string text;
  {
    std::ifstream in(path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) throw InputError(fmt::format("{}: cannot be read", path));
  }
  reject_nul_byte(path, text);
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    throw InputError(
        fmt::format("{}:{}: nests deeper than the YAML reader allows ({} levels); "
                    "not a csxsim input (they nest about 10 deep)",
                    path, e.mark.line + 1, e.depth()));
  } catch (const YAML::Exception& e) {
    const bool tab = line_of(text, e.mark.line).find('\t') != std::string::npos;
    throw InputError(
        fmt::format("{}:{}:{}: YAML syntax error: {}{}", path, e.mark.line + 1, e.mark.column + 1,
                    e.msg, tab ? " (this line has a tab; YAML indents with spaces only)" : ""));
  }
  if (docs.size() > 1)
    throw InputError(
        fmt::format("{}: holds {} YAML documents; csxsim reads one", path, docs.size()));
  YAML::Node root = docs.empty() ? YAML::Node() : docs.front();
  if (!root || root.IsNull()) throw InputError(fmt::format("{}: the file is empty", path));
  Walk quotes{path};
  reject_unclosed_quotes(root, text, quotes, 0);
  Walk check{path};
  resolve_duplicate_keys(root, check, 0, rule, !rule.later_wins);
  Walk merge{path};
  apply_merge_keys(root, merge, 0);
  if (!root.IsMap())
    throw InputError(fmt::format("{}: expected a YAML mapping of keys at the top level", path));
  return root;
}

}  // namespace

YAML::Node load_yaml_file(const std::string& path) {
  return load_yaml(path, {});
}

YAML::Node load_modelzoo_yaml_file(const std::string& path, std::vector<std::string>& warnings,
                                   const std::vector<std::string>& strict_blocks) {
  return load_yaml(path, {true, strict_blocks, &warnings});
}

Block::Block(std::string file, std::string key_path, YAML::Node node)
    : file_(std::move(file)), key_path_(std::move(key_path)), node_(std::move(node)) {}

std::string Block::where(const std::string& key) const {
  const std::string path = key_path_.empty() ? key : key_path_ + "." + key;
  YAML::Mark mark = node_.Mark();
  if (node_.IsMap())
    for (const auto& kv : node_)
      if (kv.first.IsScalar() && kv.first.Scalar() == key) mark = kv.first.Mark();
  if (mark.is_null()) return fmt::format("{}: {}", file_, path);
  return fmt::format("{}:{}: {}", file_, mark.line + 1, path);
}

bool Block::has(const std::string& key) const {
  consulted_->insert(key);
  return node_.IsMap() && node_[key].IsDefined();
}

bool Block::has_value(const std::string& key) const {
  return has(key) && !node_[key].IsNull();
}

std::string Block::near_miss(const std::string& key) const {
  if (has(key) && node_[key].IsNull()) return fmt::format(" ({} is empty)", where(key));
  std::string hint;
  if (node_.IsMap())
    for (const auto& kv : node_)
      if (kv.first.IsScalar() && !did_you_mean(kv.first.Scalar(), {key}).empty())
        hint = fmt::format(" ('{}' is there; did you mean '{}'?)", kv.first.Scalar(), key);
  return hint;
}

std::string Block::missing(const std::string& key) const {
  return fmt::format("{}: required key is missing{}", where(key), near_miss(key));
}

Block Block::child(const std::string& key) const {
  if (!has(key)) throw InputError(missing(key));
  const YAML::Node n = node_[key];
  if (!n.IsMap()) throw InputError(fmt::format("{}: expected a mapping of keys", where(key)));
  return Block(file_, key_path_.empty() ? key : key_path_ + "." + key, n);
}

std::optional<Block> Block::optional_child(const std::string& key) const {
  if (!has_value(key)) return std::nullopt;
  return child(key);
}

YAML::Node Block::scalar(const std::string& key) const {
  if (!has(key)) throw InputError(missing(key));
  const YAML::Node n = node_[key];
  if (!n.IsScalar()) {
    const char* kind = n.IsSequence() ? "a list" : n.IsMap() ? "a mapping" : "empty";
    throw InputError(fmt::format("{} is {}, expected a single value", where(key), kind));
  }
  return n;
}

std::int64_t Block::get_int(const std::string& key, std::int64_t min, std::int64_t max) const {
  const YAML::Node n = scalar(key);
  const std::string text = n.Scalar();
  const auto yaml11 = n.Tag() == "?" ? yaml11_int(text, where(key)) : std::nullopt;
  if (yaml11 && *yaml11 < min)
    throw InputError(
        fmt::format("{} = {} (= {}): must be at least {}", where(key), text, *yaml11, min));
  const auto v = yaml11 ? *yaml11 : parse_whole(text, where(key), min);
  if (v > max) throw InputError(fmt::format("{} = {}: must be at most {}", where(key), text, max));
  return v;
}

std::optional<std::int64_t> Block::get_int_opt(const std::string& key, std::int64_t min,
                                               std::int64_t max) const {
  if (!has_value(key)) return std::nullopt;
  return get_int(key, min, max);
}

double Block::get_number(const std::string& key, double min, double max) const {
  const std::string text = scalar(key).Scalar();
  double v = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  if (first != last && *first == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (text.empty() || ec != std::errc{} || ptr != last || !std::isfinite(v))
    throw InputError(fmt::format("{} = '{}': expected a finite number", where(key), text));
  if (v < min || v > max)
    throw InputError(fmt::format("{} = {}: must be within [{}, {}]", where(key), text, min, max));
  return v;
}

std::optional<double> Block::get_number_opt(const std::string& key, double min, double max) const {
  if (!has_value(key)) return std::nullopt;
  return get_number(key, min, max);
}

std::string Block::get_string(const std::string& key) const {
  return scalar(key).Scalar();
}

std::optional<std::string> Block::get_string_opt(const std::string& key) const {
  if (!has_value(key)) return std::nullopt;
  return get_string(key);
}

bool Block::get_bool(const std::string& key, bool fallback) const {
  if (!has_value(key)) return fallback;
  const std::string text = scalar(key).Scalar();
  // YAML 1.1's booleans, as PyYAML (which the Model Zoo reads its files with) resolves them.
  // 1 and 0 are integers there, which the config classes (pydantic) take for booleans.
  for (const char* t : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "1"})
    if (text == t) return true;
  for (const char* f : {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "0"})
    if (text == f) return false;
  throw InputError(
      fmt::format("{} = '{}': expected true or false (or yes/no, on/off, 1/0)", where(key), text));
}

std::string Block::get_choice(const std::string& key, const std::vector<std::string>& allowed,
                              const std::string& fallback) const {
  if (!has_value(key)) return fallback;
  const std::string v = get_string(key);
  for (const auto& a : allowed)
    if (a == v) return v;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  throw InputError(
      fmt::format("{} = '{}': must be one of {}{}", where(key), v, list, did_you_mean(v, allowed)));
}

std::string Block::get_choice_any_case(const std::string& key,
                                       const std::vector<std::string>& allowed,
                                       const std::string& fallback) const {
  if (!has_value(key)) return fallback;
  std::string v = get_string(key);
  std::transform(v.begin(), v.end(), v.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return v;
  return get_choice(key, allowed, fallback);  // refused with the value as written
}

void Block::require_known_keys(const std::vector<std::string>& known) const {
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw InputError(fmt::format("{}: unknown key{}", where(key), did_you_mean(key, known)));
  }
}

void Block::warn_unknown_keys(const std::vector<std::string>& known, bool only_near,
                              std::vector<std::string>& warnings, const std::string& family) const {
  const std::string for_family = family.empty() ? "" : fmt::format(" for '{}'", family);
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string hint = did_you_mean(key, known);
    if (only_near && hint.empty()) continue;
    warnings.push_back(
        fmt::format("{}: key not defined{} by the Model Zoo releases csxsim knows (R_1.7.0, 2.3.0, "
                    "2.10.0; a few keys of others){}; ignored",
                    where(key), for_family, hint));
  }
}

void Block::reject_typos(const std::vector<std::string>& read,
                         const std::vector<std::string>& ignored) const {
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    if (std::find(read.begin(), read.end(), key) != read.end()) continue;
    if (std::find(ignored.begin(), ignored.end(), key) != ignored.end()) continue;
    std::vector<std::string> known = read;
    known.insert(known.end(), ignored.begin(), ignored.end());
    const std::string hint = did_you_mean(key, known);
    if (!hint.empty()) throw InputError(fmt::format("{}: unknown key{}", where(key), hint));
  }
}

}  // namespace csx::io
