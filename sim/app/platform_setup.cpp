// The platforms of a sweep or plan: each platform of the list, as given and with each variant.
#include "app/platform_setup.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <filesystem>

#include "app/data_folder.hpp"
#include "app/job_options.hpp"
#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "input/platform_loader.hpp"
#include "input/value_list.hpp"

namespace csx::app {
namespace {

// Whether two paths name one file (platforms/cs2.yaml and the data folder's cs2.yaml).
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return a == b || std::filesystem::equivalent(a, b, ec);
}

struct Variant {
  std::string name;
  std::vector<std::pair<std::string, std::string>> overrides;
};

// KEY of [P:]KEY.
std::string bare_key(const std::string& key) {
  const auto colon = key.find(':');
  return colon == std::string::npos ? key : key.substr(colon + 1);
}

// The P of whichever of two [P:]KEY has one.
std::string prefixed_platform(const std::string& a, const std::string& b) {
  const std::string& with = a.find(':') != std::string::npos ? a : b;
  return with.substr(0, with.find(':'));
}

Variant parse_variant(const std::string& text, const std::vector<std::string>& platforms) {
  constexpr std::size_t kMaxName = 40;
  const auto colon = text.find(':');
  Variant v{text.substr(0, std::min(colon, text.size())), {}};
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  const bool good_name = !v.name.empty() && v.name.size() <= kMaxName && word(v.name.front()) &&
                         std::all_of(v.name.begin(), v.name.end(), [&](char c) {
                           return word(c) || c == '_' || c == '-' || c == '.';
                         });
  if (colon == std::string::npos || !good_name)
    throw InputError(fmt::format(
        "--variant '{}': expected NAME:KEY=VALUE[,KEY=VALUE...], NAME of up to {} letters, "
        "digits, _ - . starting with a letter or digit (e.g. io2x:system.io_scale=2)",
        text, kMaxName));
  if (std::find(platforms.begin(), platforms.end(), v.name) != platforms.end())
    throw InputError(fmt::format(
        "--variant '{}': {} is a platform, not a variant name; a variant is NAME:[{}:]KEY=VALUE",
        text, v.name, v.name));
  for (const auto& kv : io::split(text.substr(colon + 1), ',')) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(fmt::format("--variant '{}': '{}' is not KEY=VALUE", text, kv));
    for (const auto& [key, value] : v.overrides)
      if (same_setting(key, kv.substr(0, eq)))
        throw InputError(
            key == kv.substr(0, eq)
                ? fmt::format("--variant '{}': {} is set twice", text, key)
                : fmt::format("--variant '{}': {} and {} would both set {} on {}; set each key "
                              "once",
                              text, key, kv.substr(0, eq), bare_key(key),
                              prefixed_platform(key, kv.substr(0, eq))));
    v.overrides.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return v;
}

// A missing platform file named like a shipped platform (cs2.yaml for cs2): " (did you mean
// 'cs2'?)", or with the flag's whole list, `listed`, when given ("--platform cs2,cs3" for
// cs2,cs3.yaml); "" otherwise.
std::string shipped_hint(const std::string& value, const std::string& listed,
                         const std::string& data_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path given(value);
  const std::string stem = given.stem().string();
  if (!platform::is_platform_path(value) || fs::exists(given, ec) || stem.empty() ||
      !fs::is_regular_file(fs::path(data_dir) / "platforms" / (stem + ".yaml"), ec))
    return {};
  if (listed.empty()) return fmt::format(" (did you mean '{}'?)", stem);
  auto items = io::split(listed, ',');
  std::replace(items.begin(), items.end(), value, stem);
  return fmt::format(" (did you mean '--platform {}'?)", fmt::join(items, ","));
}

}  // namespace

platform::PlatformSpec load_platform_given(const std::string& value, const std::string& where,
                                           const std::string& listed, const std::string& data_dir) {
  const bool flag = where.starts_with("--");
  if (value.empty())
    throw InputError(fmt::format("{} is empty: use cs2, cs3 or a platform file",
                                 where.empty() ? "the platform" : where));
  if (!platform::is_platform_path(value)) check_data_dir();
  try {
    return platform::load_platform(value, data_dir);
  } catch (const InputError& e) {
    const std::string what = e.what();
    InputError out(what.find("(did you mean") == std::string::npos
                       ? what + shipped_hint(value, flag ? listed : "", data_dir)
                       : what);
    out.warnings = e.warnings;
    if (where.empty() || (flag && platform::is_platform_path(value))) throw out;  // names its file
    throw InputError(
        fmt::format("{}{}: {}", where, flag ? fmt::format(" {}", listed) : "", out.what()));
  }
}

std::vector<PlatformSetup> platform_setups(const Overrides& base,
                                           const std::vector<std::string>& variant_texts,
                                           const std::string& scenario_platform,
                                           const std::string& scenario_platform_where,
                                           const std::string& data_dir) {
  std::vector<std::string> platforms{scenario_platform};
  if (base.platform) {
    platforms = io::split(*base.platform, ',');
    for (const auto& p : platforms)
      if (p.empty())
        throw InputError(
            base.platform->empty()
                ? std::string("--platform is empty: use cs2, cs3 or a platform file")
                : fmt::format("--platform {}: an empty name in the list", *base.platform));
  }
  std::vector<platform::PlatformSpec> specs;
  std::vector<std::string> names;
  for (const auto& p : platforms) {
    specs.push_back(base.platform ? load_platform_given(p, "--platform", *base.platform, data_dir)
                                  : load_platform_given(p, scenario_platform_where, p, data_dir));
    const auto same = std::find(names.begin(), names.end(), specs.back().name);
    if (same != names.end()) {
      const auto& first = specs[static_cast<std::size_t>(same - names.begin())];
      const auto& again = specs.back();
      throw InputError(
          same_file(first.source, again.source)
              ? fmt::format("--platform {}: the platform {} is listed twice",
                            base.platform.value_or(p), again.name)
              : fmt::format("--platform {}: {} and {} are both named {} (platform.name), and "
                            "the rows' platform column would not tell them apart; rename one, "
                            "or give the changed keys as a --variant",
                            base.platform.value_or(p), first.source, again.source, again.name));
    }
    names.push_back(specs.back().name);
  }
  std::vector<Variant> variants{{"", {}}};
  for (const auto& text : variant_texts) {
    std::vector<std::string> taken = names;
    taken.insert(taken.end(), {"cs2", "cs3"});
    auto v = parse_variant(text, taken);
    for (const auto& seen : variants)
      if (seen.name == v.name)
        throw InputError(fmt::format("--variant '{}': the name {} is used twice", text, v.name));
    variants.push_back(std::move(v));
  }
  const auto check_prefixes = [&](const auto& overrides, const std::string& flag) {
    for (const auto& [key, value] : overrides) {
      const auto colon = key.find(':');
      if (colon == std::string::npos) continue;
      const auto target = key.substr(0, colon);
      if (std::find(names.begin(), names.end(), target) == names.end())
        throw InputError(fmt::format("{} {}={}: no platform '{}' in this run (platforms: {}){}",
                                     flag, key, value, target, fmt::join(names, ", "),
                                     did_you_mean(target, names)));
    }
  };
  check_prefixes(base.platform_overrides, "--platform-override");
  for (const auto& v : variants) check_prefixes(v.overrides, "--variant " + v.name + ":");
  std::vector<PlatformSetup> out;
  for (std::size_t i = 0; i < platforms.size(); ++i)
    for (const auto& v : variants) {
      // A variant whose keys all name other platforms leaves this one as it is.
      if (!v.name.empty() && platform::overrides_for(names[i], v.overrides).empty()) continue;
      // One key, one value: a variant may not set what --platform-override sets (the row's
      // overrides column would list both, and `run` refuses a key given twice).
      const auto base_overrides = platform::overrides_for(names[i], base.platform_overrides);
      for (const auto& [key, value] : platform::overrides_for(names[i], v.overrides))
        for (const auto& [base_key, base_value] : base_overrides)
          if (key == base_key)
            throw InputError(fmt::format(
                "--variant {}:{}={}: {} is set by --platform-override too ({}={}); set each key "
                "in one place",
                v.name, key, value, key, base_key, base_value));
      PlatformSetup setup{base, specs[i], platform_label(names[i], v.name)};
      setup.overrides.platform = platforms[i];
      setup.overrides.variant = v.name;
      setup.overrides.refuse_other_platform_overrides = false;
      platform::apply_overrides(setup.spec, base.platform_overrides, false);
      platform::apply_overrides(setup.spec, v.overrides, false, "--variant " + v.name);
      setup.overrides.variant_overrides = v.overrides;
      out.push_back(std::move(setup));
    }
  return out;
}

std::vector<std::string> platform_files(const std::vector<PlatformSetup>& setups) {
  std::vector<std::string> files;
  for (const auto& s : setups)
    if (std::find(files.begin(), files.end(), s.spec.source) == files.end())
      files.push_back(s.spec.source);
  return files;
}

}  // namespace csx::app
