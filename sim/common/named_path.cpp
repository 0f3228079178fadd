// Paths named by files, relative to the naming file.
#include "common/named_path.hpp"

#include <filesystem>

namespace csx {

std::string path_named_by(const std::string& naming_file, const std::string& value) {
  namespace fs = std::filesystem;
  const fs::path named(value);
  if (named.is_absolute()) return value;
  return (fs::path(naming_file).parent_path() / named).string();
}

}  // namespace csx
