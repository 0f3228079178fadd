// A CS-X platform: published hardware facts plus named calibration parameters.
// Units are SI: bytes, seconds, FLOP, FLOP/s, bytes/s. The platform files
// (platforms/cs2.yaml, platforms/cs3.yaml) cite the source of each fact.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace csx::platform {

enum class GradientAccumulation {
  kMemoryX,  // every microbatch's gradients leave the wafer and are summed off-wafer
  kWafer,    // summed on the wafer (fp32 copy of all gradients); sent once per step
};

struct PlatformSpec {
  std::string name;    // "cs2", "cs3"
  std::string source;  // file it came from

  // Published facts (per CS-X system).
  std::int64_t cores = 0;
  double sram_bytes = 0;                   // on-chip SRAM (bytes)
  double sram_bandwidth_Bps = 0;           // bytes/s
  double fabric_bandwidth_Bps = 0;         // wafer fabric, bytes/s
  double peak_flops = 0;                   // dense 16-bit FLOP/s
  std::int64_t fabric_rows = 0;            // rows of the core grid a streamed weight word feeds
  std::int64_t fabric_columns = 0;         // columns of the core grid: they split a product's
                                           // input features (its contraction)
  std::int64_t simd_width = 0;             // 16-bit FMACs per core per cycle
  std::int64_t io_ports = 0;               // 100 GbE ports
  double io_port_bandwidth_Bps = 0;        // bytes/s per port
  double io_scale = 1;                     // scales every link of the weight path (CS-X I/O,
                                           // SwarmX links, MemoryX link): "N times the I/O"
  std::int64_t max_cluster_size = 0;       // largest num_csx supported
  std::int64_t swarmx_fanout = 0;          // children per SwarmX broadcast-reduce node
  double swarmx_link_bandwidth_Bps = 0;    // bytes/s per SwarmX port
  double memoryx_capacity_bytes = 0;       // weights + optimizer state store (bytes)
  double memoryx_bytes_per_parameter = 0;  // mixed-precision Adam state (bytes/parameter)

  // Calibration parameters (unpublished; defaults and reasoning in the platform file).
  double memoryx_bandwidth_Bps = 0;        // MemoryX streaming bandwidth, bytes/s
  double optimizer_rate_params_per_s = 0;  // MemoryX optimizer update rate (parameters/s)
  double swarmx_hop_latency_s = 0;         // per SwarmX tree hop (s)
  double swarmx_chunk_bytes = 0;           // SwarmX forwards layers in chunks of this size
  double compute_efficiency = 0;           // fraction of peak a kernel reaches with full SIMD lanes
  double dispatch_overhead_cycles = 0;     // core cycles per arriving weight word beyond the FMACs
  double softmax_cycles_per_score = 0;     // core cycles per attention score beyond its FMACs
  double reduce_cycles_per_output = 0;     // core cycles per partial sum sent across the columns
  double sram_bytes_per_flop = 0;          // SRAM traffic a weight-streamed product needs (bytes)
  double step_overhead_s = 0;              // fixed cost of each training step (s)
  double client_step_floor_s = 0;          // shortest training step the client keeps up with (s)
  double kernel_overhead_s = 0;            // fixed cost per layer kernel pass (s)
  double microbatch_overhead_s = 0;        // fixed cost per microbatch (s)
  double usable_sram_fraction = 0;         // share of SRAM available to the model
  double workspace_bytes = 0;              // kernel scratch and I/O buffers (bytes)
  std::int64_t weight_buffers = 0;         // layers of weights held at once (prefetch depth)
  bool store_all_activations = false;      // true: never recompute (no least-recompute choice)
  // Bytes of each attention score a trained block keeps for backward (0: the attention kernel
  // recomputes them).
  double kept_bytes_per_attention_score = 0;
  GradientAccumulation gradient_accumulation = GradientAccumulation::kMemoryX;
  // true: MemoryX starts a step's weight updates only once every gradient of the step has
  // arrived (global-norm gradient clipping needs the norm over all of them first); false: each
  // layer's update starts at its own last gradient.
  bool update_after_all_gradients = false;
  // Standard deviation of the grouped cross-validation's out-of-sample ln(predicted /
  // measured): the width of the prediction intervals (model/prediction_interval.hpp).
  double prediction_log_sd = 0;

  // Input workers (docs/model.md#input-pipeline): samples per second one dataloader process of
  // the Model Zoo's ImageNet1KProcessor (JPEG decode and augmentation) delivers on the cluster's
  // input worker nodes, measured from real runs' step timestamps; 0: unknown, not simulated.
  double imagenet1k_samples_per_s = 0;
  // SD of ln(rate) between the clusters that measured it: widens the interval of an input-bound
  // step whose rate comes from here.
  double input_rate_log_sd = 0;

  // External I/O of one system: io_ports x io_port_bandwidth_Bps x io_scale.
  [[nodiscard]] double io_bandwidth_Bps() const {
    return static_cast<double>(io_ports) * io_port_bandwidth_Bps * io_scale;
  }
  // A link between SwarmX nodes: io_ports x swarmx_link_bandwidth_Bps x io_scale.
  [[nodiscard]] double swarmx_edge_Bps() const {
    return static_cast<double>(io_ports) * swarmx_link_bandwidth_Bps * io_scale;
  }
  // MemoryX to the SwarmX root: memoryx_bandwidth_Bps x io_scale.
  [[nodiscard]] double memoryx_link_Bps() const { return memoryx_bandwidth_Bps * io_scale; }
  [[nodiscard]] double usable_sram_bytes() const { return sram_bytes * usable_sram_fraction; }

  // Keys an override set ("memoryx.capacity_bytes" -> "--platform-override"), for messages.
  std::map<std::string, std::string> overridden;
  // Where `key`'s value comes from: "memoryx.capacity_bytes in FILE", or
  // "memoryx.capacity_bytes, set by --platform-override".
  [[nodiscard]] std::string origin(const std::string& key) const {
    const auto it = overridden.find(key);
    return it == overridden.end() ? key + " in " + source : key + ", set by " + it->second;
  }
};

}  // namespace csx::platform
