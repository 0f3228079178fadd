// Where a path that a file names points: relative to the file that names it, never to the
// working directory (docs/cli.md#files-that-name-files). One rule for every such path.
#pragma once

#include <string>

namespace csx {

// Where a path leads: a symbolic link's target, followed link by link (at most 40; a relative
// target is relative to its link's folder), also when the last does not exist, as a shell's >
// follows it; else the path itself. Never throws.
[[nodiscard]] std::string link_target(const std::string& path);

// The file a write to `path` lands in: its links followed (link_target), made absolute and
// canonical as far as it exists, so every name of one file gives one text; `path` itself when
// that fails. Never throws.
[[nodiscard]] std::string written_path(const std::string& path);

// `value` as written in `naming_file`: an absolute path is kept, a relative one is joined to
// the directory of `naming_file` (itself absolute or relative to the working directory), or,
// when `naming_file` is a symbolic link, of the file it links to (links followed, at most 40).
// Never throws.
[[nodiscard]] std::string path_named_by(const std::string& naming_file, const std::string& value);

}  // namespace csx
