// JSON text.
#include "report/results_json.hpp"

namespace csx::io {

std::string json_text(const nlohmann::ordered_json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace csx::io
