// Lists of sweep values: "1,2,4", a geometric range "1:64:x2" or an arithmetic one
// "256:2048:+256". Also the shard spec "I/N" (0 <= I < N).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace csx::io {

// Values in the order written (ranges ascending). Throws InputError naming `flag` for junk,
// values < 1, an empty or descending range, a factor < 2, a step < 1, or more than 100,000
// values.
[[nodiscard]] std::vector<std::int64_t> parse_value_list(const std::string& text,
                                                         const std::string& flag);

// `values` ascending, each once.
void sort_unique(std::vector<std::int64_t>& values);

// The parts of `s` between the separators, empty ones kept ("a,,b" -> a, "", b; "" -> "").
[[nodiscard]] std::vector<std::string> split(const std::string& s, char sep);

// "I/N" -> {I, N}. Throws InputError unless N >= 1 and 0 <= I < N.
[[nodiscard]] std::pair<std::int64_t, std::int64_t> parse_shard(const std::string& text);

}  // namespace csx::io
