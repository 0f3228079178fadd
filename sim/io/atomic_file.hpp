// Output files are written whole or not at all: to a temporary file in the same directory,
// then renamed over the target.
#pragma once

#include <string>

namespace csx::io {

// Throws InputError when `path` cannot be written: its directory is missing or not writable,
// or it names a directory. Call before any work starts.
void check_output_path(const std::string& path, const std::string& flag);

// Writes `content` to `path` atomically. Throws InputError on failure; `path` is untouched then.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace csx::io
