// `csxsim platform [P ...] --keys`: every key a platform file or --platform-override takes, with
// its unit, meaning, bounds and each platform's value.
#include <fmt/format.h>

#include "app/data_folder.hpp"
#include "cli/commands.hpp"
#include "cli/option_descriptions.hpp"
#include "common/errors.hpp"
#include "input/platform_loader.hpp"

namespace csx::cli {

int platform_command(const Args& args) {
  const auto vm = parse_command(args, "platform");
  if (!vm) return 0;
  auto names = given_options(*vm, "platform").texts("platforms");
  if (names.empty()) names = {"cs2", "cs3"};
  std::vector<platform::PlatformSpec> specs;
  for (const auto& n : names) {
    if (!platform::is_platform_path(n)) app::check_data_dir();
    specs.push_back(platform::load_platform(n, app::data_dir()));
    // Columns are headed by the platform's name: two of one name could not be told apart.
    for (std::size_t i = 0; i + 1 < specs.size(); ++i)
      if (specs[i].name == specs.back().name)
        throw InputError(fmt::format("platform '{}' is listed twice (as {} and {})",
                                     specs.back().name, names[i], n));
  }
  std::string head = fmt::format("{:<42} {:<13}", "key", "unit");
  for (const auto& s : specs) head += fmt::format(" {:>15}", s.name);
  fmt::print("{} {:<13} {}\n", head, "bounds", "meaning");
  for (const auto& k : platform::platform_keys()) {
    std::string line = fmt::format("{:<42} {:<13}", k.key, k.unit);
    for (const auto& s : specs) line += fmt::format(" {:>15}", platform::parameter_value(s, k.key));
    const auto bounds =
        k.min == 0 && k.max == 0 ? std::string("-") : fmt::format("{:g}..{:g}", k.min, k.max);
    fmt::print("{} {:<13} {}\n", line, bounds, k.meaning);
  }
  fmt::print(
      "\nSet a key for one run with --platform-override KEY=VALUE (PLATFORM:KEY=VALUE for one "
      "platform of a sweep); compare with --variant NAME:KEY=VALUE,... in sweep and plan.\n");
  return 0;
}

}  // namespace csx::cli
