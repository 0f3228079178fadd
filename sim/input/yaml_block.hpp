// Typed, validated reads from YAML files. Every error names the file, the line, the key path,
// the value and the rule broken; typos get a did-you-mean.
#pragma once

#include <yaml-cpp/yaml.h>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace csx::io {

// Loads one of csxsim's own YAML files (platforms). Throws InputError for a missing file, a
// directory, an empty file, a syntax error (with its line) or a key given twice with different
// values.
[[nodiscard]] YAML::Node load_yaml_file(const std::string& path);

// Loads a Model Zoo params file (or a scenario built on one) as the Cerebras stack reads it, with
// PyYAML: of a key given twice in one map the later value wins, and `warnings` gets a line naming
// both lines. The top-level blocks in `strict_blocks` (csxsim's own `simulation:`) stay strict:
// a repeat with a different value there, or of the block itself, is an InputError. Other errors
// as load_yaml_file.
[[nodiscard]] YAML::Node load_modelzoo_yaml_file(const std::string& path,
                                                 std::vector<std::string>& warnings,
                                                 const std::vector<std::string>& strict_blocks = {
                                                     "simulation"});

// A map node being read, with where it came from.
class Block {
 public:
  Block(std::string file, std::string key_path, YAML::Node node);

  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::string& key_path() const { return key_path_; }
  [[nodiscard]] const YAML::Node& node() const { return node_; }
  // The keys looked up so far (has, get_*, child), by this block and its copies.
  [[nodiscard]] const std::set<std::string>& consulted() const { return *consulted_; }
  // "file:line: key.path.key" for messages.
  [[nodiscard]] std::string where(const std::string& key) const;

  [[nodiscard]] bool has(const std::string& key) const;
  // Present and not null.
  [[nodiscard]] bool has_value(const std::string& key) const;
  // A nested map. Throws InputError when absent or not a map.
  [[nodiscard]] Block child(const std::string& key) const;
  [[nodiscard]] std::optional<Block> optional_child(const std::string& key) const;

  // Whole number in [min, max]. Throws InputError on absence, wrong type, fraction, overflow,
  // or a value out of range.
  [[nodiscard]] std::int64_t get_int(
      const std::string& key, std::int64_t min = 1,
      std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  [[nodiscard]] std::optional<std::int64_t> get_int_opt(
      const std::string& key, std::int64_t min = 1,
      std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  // Finite number within [min, max]; NaN, inf and non-numbers are refused.
  [[nodiscard]] double get_number(const std::string& key, double min, double max) const;
  [[nodiscard]] std::optional<double> get_number_opt(const std::string& key, double min,
                                                     double max) const;
  [[nodiscard]] std::string get_string(const std::string& key) const;
  [[nodiscard]] std::optional<std::string> get_string_opt(const std::string& key) const;
  // true/false, or YAML 1.1's yes/no and on/off (PyYAML's booleans); InputError otherwise.
  [[nodiscard]] bool get_bool(const std::string& key, bool fallback) const;
  // A value that must be one of `allowed`.
  [[nodiscard]] std::string get_choice(const std::string& key,
                                       const std::vector<std::string>& allowed,
                                       const std::string& fallback) const;
  // The same, compared in lower case and returned in lower case (`allowed` is), as the Model
  // Zoo reads an activation's name ("SwiGLU" is swiglu).
  [[nodiscard]] std::string get_choice_any_case(const std::string& key,
                                                const std::vector<std::string>& allowed,
                                                const std::string& fallback) const;

  // For an absent `key`: " ('KEY2' is there; did you mean 'KEY'?)" naming a present key that
  // may be its typo, else ""; for a `key` without a value: " (FILE:LINE: PATH.KEY is empty)".
  [[nodiscard]] std::string near_miss(const std::string& key) const;

  // Blocks we own: every key must be in `known`, else InputError with a did-you-mean.
  void require_known_keys(const std::vector<std::string>& known) const;
  // Blocks of Model Zoo files: a key not in `known` adds a warning with a did-you-mean (only
  // when one is close, with `only_near`); the file is never refused for it. A non-empty
  // `family` is named in the warning.
  void warn_unknown_keys(const std::vector<std::string>& known, bool only_near,
                         std::vector<std::string>& warnings, const std::string& family = {}) const;
  // Blocks shared with the Model Zoo: a key that is not in `read` or `ignored` but is close to a
  // key in `read` is taken for a typo (InputError with a did-you-mean); other keys are ignored.
  void reject_typos(const std::vector<std::string>& read,
                    const std::vector<std::string>& ignored) const;

 private:
  [[nodiscard]] YAML::Node scalar(const std::string& key) const;
  // "required key is missing", naming a present key that may be its typo.
  [[nodiscard]] std::string missing(const std::string& key) const;
  std::string file_;
  std::string key_path_;
  YAML::Node node_;
  std::shared_ptr<std::set<std::string>> consulted_ = std::make_shared<std::set<std::string>>();
};

}  // namespace csx::io
