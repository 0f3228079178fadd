// The objects `csxsim candidates --json` and `csxsim describe --json` print; the Python module
// returns them as dicts (docs/python.md#python).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace csx::cli {

// The batching rules of `batch` samples over `num_csx` systems with setting `mbs` (the flags'
// text). Throws InputError naming the flag.
[[nodiscard]] nlohmann::ordered_json candidates_json(const std::string& batch,
                                                     const std::string& num_csx,
                                                     const std::string& mbs);
// A model (file or models/ name) on a platform (name or file). Throws as the loaders do.
[[nodiscard]] nlohmann::ordered_json describe_json(const std::string& model,
                                                   const std::string& platform,
                                                   const std::optional<std::string>& seq_len);

}  // namespace csx::cli
