// Chrome trace-event JSON (loads in Perfetto and chrome://tracing): one thread per track,
// "complete" (ph = X) events in microseconds.
#pragma once

#include <string>
#include <vector>

#include "plan/simulation_plan.hpp"

namespace csx::io {

// `title` names the process (model, platform, MBS). Tracks keep a fixed order: steps, MemoryX,
// SwarmX, then the CS-X systems.
[[nodiscard]] std::string chrome_trace_json(const std::vector<plan::TraceEvent>& events,
                                            const std::string& title);

}  // namespace csx::io
