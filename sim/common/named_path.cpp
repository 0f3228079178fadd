// Paths named by files, relative to the naming file.
#include "common/named_path.hpp"

#include <filesystem>

namespace csx {

std::string link_target(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  for (int hops = 0; hops < 40 && fs::is_symlink(p, ec); ++hops) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return p.string();
}

std::string written_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(fs::absolute(link_target(path), ec), ec);
  return ec ? path : target.string();
}

std::string path_named_by(const std::string& naming_file, const std::string& value) {
  namespace fs = std::filesystem;
  const fs::path named(value);
  if (named.is_absolute()) return value;
  // A naming file that is a symbolic link names paths from where the file it links to lives.
  return (fs::path(link_target(naming_file)).parent_path() / named).string();
}

}  // namespace csx
