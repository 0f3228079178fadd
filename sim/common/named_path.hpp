// Where a path that a file names points: relative to the file that names it, never to the
// working directory (docs/cli.md#files-that-name-files). One rule for every such path.
#pragma once

#include <string>

namespace csx {

// `value` as written in `naming_file`: an absolute path is kept, a relative one is joined to
// the directory of `naming_file` (itself absolute or relative to the working directory).
// No file system access; never throws.
[[nodiscard]] std::string path_named_by(const std::string& naming_file, const std::string& value);

}  // namespace csx
