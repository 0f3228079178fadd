// Paths named by files, relative to the naming file.
#include "common/named_path.hpp"

#include <filesystem>

namespace csx {

std::string path_named_by(const std::string& naming_file, const std::string& value) {
  namespace fs = std::filesystem;
  const fs::path named(value);
  if (named.is_absolute()) return value;
  // A naming file that is a symbolic link names paths from where the file it links to lives.
  std::error_code ec;
  fs::path from(naming_file);
  for (int hops = 0; hops < 40 && fs::is_symlink(from, ec); ++hops) {
    const fs::path target = fs::read_symlink(from, ec);
    if (ec) break;
    from = target.is_absolute() ? target : from.parent_path() / target;
  }
  return (from.parent_path() / named).string();
}

}  // namespace csx
