// The options of csxsim's commands, each declared once (docs/cli.md#options-of-run-and-sweep):
// its flag, Python keyword, value type, default, unit and help, and which commands take it, in
// the order their --help lists them. The CLI builds its option descriptions from it
// (cli/option_descriptions), the Python module its signatures and the reading of its keyword
// arguments (python/), and `csxsim options` the docs' table. Values stay text here: the
// commands read them (and refuse them, naming the flag).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace csx::app {

// What an option's value is, as the CLI takes it (text) and the Python module accepts it.
enum class ValueType {
  kSwitch,     // no value (Python: True or False)
  kText,       // one word: a name, a setting (Python: str or number)
  kFile,       // a file name (Python: str or os.PathLike)
  kCount,      // a whole number >= 1
  kWhole,      // a whole number of any sign (checked by the command's own range)
  kCountList,  // whole numbers: 1,2,4 or 1:64:x2 (Python: also an int or a list of ints)
  kAmount,     // a positive amount: 1e12, 300B, 1T
  kDuration,   // a duration: 7d, 36h, 90min
  kPlatforms,  // a platform name or file, or a list of them (Python: also a list)
  kNames,      // names, comma-separated (Python: also a list)
  kKeyValues,  // KEY=VALUE, repeatable (Python: a dict or a list)
  kRanges,     // KEY:LOW:HIGH, repeatable (CLI only: csxsim calibrate --free)
  kVariants,   // NAME:KEY=VALUE[,KEY=VALUE...], repeatable (Python: a dict or a list)
  kFiles,      // one or more files (a command's arguments)
};

// How the docs and `csxsim options` name a value type ("whole number", ...).
[[nodiscard]] std::string_view type_name(ValueType type);
// How csxsim/__init__.py turns a keyword argument of this type into the flag's text: "switch",
// "list", "platforms", "names", "key_values", "variants", or "text" (one value as it is).
[[nodiscard]] std::string_view python_kind(ValueType type);

// An option, whichever commands take it.
struct OptionSpec {
  std::string_view flag;     // the CLI's --FLAG, without the dashes: "num-csx"
  std::string_view keyword;  // the Python keyword argument: "num_csx"
  ValueType type = ValueType::kText;
  std::string_view default_text;  // what applies when it is not given ("" for nothing)
  std::string_view unit;          // of the value ("" for none)
  std::string_view help;          // the --help line of the commands that do not say otherwise
};

// Where a command takes an option.
enum class Surface { kBoth, kCli, kPython };

// An option as one command takes it; empty or unset fields are the OptionSpec's.
struct OptionUse {
  std::string_view flag;
  std::string_view help = {};                         // this command's --help line
  std::optional<ValueType> type = {};                 // this command's value type
  std::optional<std::string_view> default_text = {};  // this command's default ("": none)
  char short_flag = 0;                                // -X, or 0
  Surface surface = Surface::kBoth;
  bool argument = false;         // the command's argument (CLI positional, Python's first)
  bool cli_required = false;     // Boost refuses the command line without it
  bool python_required = false;  // a required keyword argument of the Python function
};

// An option of a command, resolved against its OptionSpec.
struct CommandOption {
  const OptionSpec* spec = nullptr;
  ValueType type = ValueType::kText;
  std::string_view help;
  std::string_view default_text;  // "" when there is none, or when the option is required
  char short_flag = 0;
  Surface surface = Surface::kBoth;
  bool argument = false, cli_required = false, python_required = false;
  [[nodiscard]] bool on_cli() const { return surface != Surface::kPython; }
  [[nodiscard]] bool in_python() const { return surface != Surface::kCli; }
};

// Every option, in the docs' order.
[[nodiscard]] const std::vector<OptionSpec>& option_specs();
// The commands of the table, in the docs' order.
[[nodiscard]] const std::vector<std::string_view>& option_commands();
// The options of `command` ("run", "sweep", ...) in --help order. Throws std::logic_error for a
// command the table does not have.
[[nodiscard]] std::vector<CommandOption> command_options(std::string_view command);
// The commands that take the option `flag` (on either surface), in option_commands() order.
[[nodiscard]] std::vector<std::string_view> commands_taking(std::string_view flag);

// The options given to one command, by flag, as text: read from the command line or from the
// Python module's keyword arguments. A switch given has no values.
class GivenOptions {
 public:
  void set(std::string flag, std::vector<std::string> values);
  [[nodiscard]] bool has(std::string_view flag) const;
  // The value of a one-value option; nullopt when not given.
  [[nodiscard]] std::optional<std::string> text(std::string_view flag) const;
  // The values of a repeatable option, in order; empty when not given.
  [[nodiscard]] std::vector<std::string> texts(std::string_view flag) const;

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> given_;
};

// The GivenOptions of a Python call to `command`: `keywords` maps each keyword argument given
// (None left out) to its values as text (a switch given True: no values; False is left out).
// Throws InputError for a keyword `command` does not take, with a did-you-mean, as the CLI
// does for an unknown option.
[[nodiscard]] GivenOptions given_keywords(
    std::string_view command,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& keywords);

}  // namespace csx::app
