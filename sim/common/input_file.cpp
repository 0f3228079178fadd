// Input file checks.
#include "common/input_file.hpp"

#include <fmt/format.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "common/did_you_mean.hpp"
#include "common/errors.hpp"
#include "common/named_path.hpp"

namespace csx {

void check_input_file(const std::string& path, const std::string& kind, std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) throw InputError(fmt::format("'': an empty path, expected a {} file", kind));
  if (!fs::exists(path, ec)) {
    if (ec == std::errc::too_many_symbolic_link_levels)
      throw InputError(fmt::format("{}: a loop of symbolic links", path));
    std::error_code e2;
    if (fs::is_symlink(path, e2))  // the chain's end, from here (link_target)
      throw InputError(
          fmt::format("{}: a symbolic link to {}, which does not exist", path, link_target(path)));
    const fs::path folder = fs::path(path).parent_path();
    if (!folder.empty() && fs::exists(folder, e2) && !fs::is_directory(folder, e2))
      throw InputError(
          fmt::format("{}: no such file ({} is a file, not a folder)", path, folder.string()));
    throw InputError(fmt::format("{}: no such file{}", path, did_you_mean_file(path, folder)));
  }
  if (fs::is_directory(path, ec))
    throw InputError(fmt::format("{}: is a directory, expected a {} file", path, kind));
  if (!fs::is_regular_file(path, ec))
    throw InputError(fmt::format("{}: is not a regular file", path));
  if (fs::file_size(path, ec) > max_bytes)
    throw InputError(
        fmt::format("{}: larger than {} MiB, not a csxsim {} file", path, max_bytes >> 20, kind));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    throw InputError(fmt::format("{}: cannot be read ({})", path, std::strerror(errno)));
  std::fclose(f);
}

}  // namespace csx
