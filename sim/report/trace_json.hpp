// Chrome trace-event JSON (loads in Perfetto and chrome://tracing): one thread per track,
// "complete" (ph = X) events and counter samples (ph = C) in microseconds, with their arguments.
#pragma once

#include <string>
#include <vector>

#include "plan/simulation_plan.hpp"

namespace csx::io {

// `title` names the process (model, platform, MBS). Tracks keep a fixed order: steps, MemoryX,
// SwarmX levels from the top, then the CS-X systems; counters follow, sorted by name and time.
[[nodiscard]] std::string chrome_trace_json(const std::vector<plan::TraceEvent>& events,
                                            const std::string& title);

}  // namespace csx::io
