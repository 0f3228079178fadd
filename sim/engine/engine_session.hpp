// One SimGrid engine and cluster platform in this process (SimGrid allows one engine per
// process; its clock never goes back).
#pragma once

#include <memory>

#include "engine/exact_reductions.hpp"
#include "engine/simulation.hpp"

namespace csx::engine {

class EngineSession {
 public:
  // Builds the cluster of `first` (platform, num_csx, representative and shown systems) at
  // clock 0.
  explicit EngineSession(const EngineRun& first);
  ~EngineSession();
  EngineSession(const EngineSession&) = delete;
  EngineSession& operator=(const EngineSession&) = delete;

  // Simulates run.input.simulated_steps (>= 1) steps of one plan on this cluster; times in the
  // result are relative to the clock at the call. Throws std::runtime_error on a deadlock or an
  // unfinished step, std::invalid_argument when no step is asked for.
  [[nodiscard]] SimulationResult run(const EngineRun& run);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace csx::engine
