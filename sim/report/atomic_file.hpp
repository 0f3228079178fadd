// Output files are written whole or not at all: to a temporary file in the same directory,
// then renamed over the target.
#pragma once

#include <string>
#include <vector>

namespace csx::io {

// Throws InputError when `path` cannot be written: its directory is missing or not writable,
// it names a directory, a device or anything but a regular file, or it is one of `inputs`.
// Call before any work starts.
void check_output_path(const std::string& path, const std::string& flag,
                       const std::vector<std::string>& inputs = {});

// Writes `content` to `path` atomically (through a symbolic link to its target). Throws
// InputError on failure; `path` is untouched then.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace csx::io
