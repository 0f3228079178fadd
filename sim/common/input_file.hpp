// The checks every input file passes before it is read: it exists, is a regular file (not a
// directory, a device or a pipe, which could block or never end) and is not implausibly large.
#pragma once

#include <cstdint>
#include <string>

namespace csx {

// `kind` names what the file should hold ("YAML", "CSV"); `max_bytes` bounds its size.
// Throws InputError: "PATH: no such file" (with a did-you-mean, or "(FOLDER is a file, not a
// folder)"), "PATH: a symbolic link to TARGET, which does not exist", "PATH: a loop of symbolic
// links", "PATH: is a directory, expected a KIND file", "PATH: is not a regular file", "PATH:
// larger than N MiB, not a csxsim KIND file", "PATH: cannot be read (REASON)" (e.g. Permission
// denied).
void check_input_file(const std::string& path, const std::string& kind, std::uintmax_t max_bytes);

}  // namespace csx
