// Reads CSV text with libcsv (RFC 4180: quoted fields may hold commas, quotes and newlines).
#pragma once

#include <string>
#include <vector>

namespace csx::io {

// The records of `text`, each a list of fields; `where` names the source in errors. Throws
// InputError for malformed quoting.
[[nodiscard]] std::vector<std::vector<std::string>> parse_csv(const std::string& text,
                                                              const std::string& where);

// The records of a file (a leading UTF-8 byte order mark skipped). Throws InputError when it
// cannot be read or is malformed.
[[nodiscard]] std::vector<std::vector<std::string>> read_csv_file(const std::string& path);

}  // namespace csx::io
