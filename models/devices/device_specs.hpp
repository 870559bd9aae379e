#pragma once
// Specifications of real parts as read from the catalogue YAML. Plain values:
// the catalogue owns them and hands out const references. Every group of
// figures keeps the source it was read from (datasheet or measurement id).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/devices/attention_kernel.hpp"
#include "models/devices/dtype_table.hpp"
#include "models/devices/power_model.hpp"
#include "sim/core/dtype.hpp"
#include "sim/core/units.hpp"

namespace simctl {

// One CTA tile shape the GEMM library can choose, and how close a kernel built
// on it gets to the best tile when it runs full (smaller tiles re-read operands
// from shared memory more often per FLOP, so they peak lower).
struct GemmTile {
  int m = 0;
  int n = 0;
  double relative_efficiency = 1.0;  // fraction of the best tile's efficiency
};

// Parameters of the shape-dependent GEMM efficiency (see gemm_efficiency.hpp).
struct GemmEfficiencyParams {
  DTypeTable<double> max_efficiency;  // fraction of peak(dtype) for a large, aligned GEMM
  std::vector<GemmTile> tiles;        // candidate tiles; the best is used
  // Fixed per-tile cost (prologue/epilogue) in K-steps of that dtype: the cost
  // is time, and an fp8 K-step takes half a bf16 one, so it is per dtype.
  DTypeTable<double> k_overhead;
  double tail_split_efficiency = 0.0;  // stream-K split of the last wave; 0 = no split
};

// One pass (forward or backward) of one fused attention kernel, fitted to
// measurements (see gemm_efficiency.hpp for the curve):
//   efficiency = max_efficiency(head_dim) * x / (x + seq_overhead) [* causal_factor]
// with x the keys each query row visits (the sequence length, half of it
// when causal).
struct AttentionPassFit {
  std::vector<std::pair<int, double>> max_efficiency;  // (head dim, fraction of peak), head dims ascending
  double seq_overhead = 0.0;                           // tokens
  double causal_factor = 1.0;                          // masking and load imbalance of the causal kernel
};

struct AttentionKernelFit {
  DTypeTable<bool> dtypes;  // the formats the fit holds for (it is a fraction of that dtype's peak)
  AttentionPassFit forward;
  AttentionPassFit backward;
};

// Fused attention. The generic curve (FlashAttention-2 fitted to fwd+bwd
// benchmark figures) prices every kernel the `kernels` map has no fit for;
// shape factors apply when the work gives m = query length, n = key/value
// length, k = head dim.
struct AttentionEfficiencyParams {
  DTypeTable<double> max_efficiency;  // fraction of peak(dtype), fwd+bwd average
  double head_dim_overhead = 0.0;     // efficiency ∝ head_dim / (head_dim + this)
  double kv_length_overhead = 0.0;    // efficiency ∝ kv_len / (kv_len + this)
  // Each kernel's fits, one per group of formats (cuDNN's fp8 attention is a
  // different kernel from its bf16 one, with its own curve); no format in two.
  std::map<FusedAttention, std::vector<AttentionKernelFit>> kernels;
  // The fit of kernel k for operands in `dtype`, or null.
  const AttentionKernelFit* fit_for(FusedAttention k, DType dtype) const {
    const auto fits = kernels.find(k);
    if (fits == kernels.end()) return nullptr;
    for (const AttentionKernelFit& fit : fits->second) {
      if (fit.dtypes.has(dtype)) return &fit;
    }
    return nullptr;
  }
  // Whether this GPU can price kernel k: flash2 always (the generic curve),
  // the others only where fitted (FlashAttention-3 exists on Hopper only).
  bool runs(FusedAttention k) const { return k == FusedAttention::flash2 || kernels.count(k) > 0; }
  // Whether kernel k is priced for operands in `dtype`: by its fit, or for
  // flash2 by the generic curve where max_efficiency lists the dtype (no
  // fused kernel takes fp32 operands: an fp32 run's attention is unfused).
  bool prices(FusedAttention k, DType dtype) const {
    return fit_for(k, dtype) != nullptr || (k == FusedAttention::flash2 && max_efficiency.find(dtype));
  }
};

struct GpuComputeParams {
  int sm_count = 0;                // streaming multiprocessors (CUs on AMD)
  double memory_efficiency = 1.0;  // sustained / peak memory bandwidth (STREAM-like)
  double vector_efficiency = 1.0;  // sustained / peak of the non-tensor (CUDA-core) rate
  // Time of a tensor-core kernel (gemm, attention) run back to back for
  // seconds over its time in a short burst, which is how the GEMM and
  // attention fits were measured: the clock drop under the power cap. From
  // the power model at the part's TDP (or a variant's power limit); 1 where
  // the part has none. Applies to ComputeWork::sustained kernels only.
  double sustained_tensor_slowdown = 1.0;
  std::optional<PowerModel> power_model;
  // The catalogue part whose die this part is (`same_die_as`), whose power
  // model prices it; empty where the part has its own.
  std::string die_part;
  GemmEfficiencyParams gemm;
  AttentionEfficiencyParams attention;
};

struct GpuSpec {
  std::string id;          // catalogue key, e.g. "h100-sxm"
  std::string variant_of;  // a system's variant (gpu_variant.hpp): its catalogue part; empty otherwise
  std::string name;        // display name
  std::string architecture;

  // Dense peak rates. fp32 is the non-tensor (CUDA-core) rate; the others are
  // tensor-core rates. Absent where the part has no such unit.
  DTypeTable<FlopRate> peak_rate;
  bool supports(DType d) const { return peak_rate.has(d); }
  // Throws std::invalid_argument naming the part and its formats when absent.
  FlopRate peak(DType d) const;

  std::string memory_kind;  // "hbm3", "gddr6x"...
  Bytes memory_capacity = 0;
  Bandwidth memory_bandwidth;

  std::string host_interface;    // "pcie_gen5_x16", "nvlink_c2c"...
  std::string scale_up_link;     // "nvlink4", "infinity_fabric", "none"...
  Bandwidth scale_up_bandwidth;  // per GPU, per direction, all links together

  double tdp_watts = 0.0;
  TimePs launch_overhead = 0;  // per kernel, added to every op's time
  GpuComputeParams compute;

  // Source per group of figures: "peak_dense", "memory", "interconnect",
  // "power", "compute_model".
  std::map<std::string, std::string> sources;
};

// One level of a CPU's memory hierarchy as one core sees it: the L1 data
// cache, L2, L3, then DRAM. Figures are per core (a single thread's loads),
// the way "latency numbers every programmer should know" tables quote them.
struct CacheLevel {
  std::string level;    // "l1", "l2", "l3", "dram"
  Bytes size = 0;       // capacity; 0 for dram (the whole memory)
  bool shared = false;  // shared by the cores (L3), else private to one core
  TimePs latency = 0;   // load-to-use latency of one access that hits here
  Bandwidth bandwidth;  // one core streaming reads from this level
  Bytes line = 64;      // transfer granularity (cache line)
  std::string source;
};

struct CpuSpec {
  std::string id;
  std::string name;
  int cores = 0;
  std::string memory_kind;     // a memory catalogue id, e.g. "ddr5-4800"
  int memory_channels = 0;     // 0 where the vendor does not state channels
  Bandwidth memory_bandwidth;  // peak, whole socket
  int pcie_lanes = 0;
  int pcie_generation = 0;
  double tdp_watts = 0.0;
  std::string source;

  // Optional: the figures that let the roofline compute model price ops on
  // this CPU (cpu_compute.hpp), read from peak_dense and compute_model as a
  // GPU's are. fp32 is the vector (FMA) rate; absent when the entry has none.
  DTypeTable<FlopRate> peak_rate;
  GpuComputeParams compute;
  TimePs launch_overhead = 0;
  std::map<std::string, std::string> compute_sources;  // "peak_dense", "compute_model"
  bool has_compute_figures() const { return peak_rate.has(DType::fp32); }
  // L1 first, DRAM last; empty where the catalogue gives none.
  std::vector<CacheLevel> hierarchy;
  const CacheLevel* level(std::string_view name) const;
};

struct MemorySpec {
  std::string id;
  std::string name;
  std::string kind;                // "ddr4", "ddr5", "lpddr5x", "hbm3"...
  double transfer_rate_mts = 0.0;  // mega-transfers per second per pin
  int channel_width_bits = 0;      // one channel (one stack for HBM)
  Bandwidth channel_bandwidth;     // peak per channel (per stack for HBM)
  Bytes burst = 64;                // bytes one access (burst) moves: the read granularity
  TimePs access_latency = 0;       // idle load-to-use latency seen by the compute units; 0: not given
  std::string source;
};

struct NicSpec {
  std::string id;
  std::string name;
  std::string protocol;  // "infiniband", "ethernet", "infiniband_or_ethernet"
  int ports = 0;
  Bandwidth port_bandwidth;  // per port, per direction
  // The rate of its one cable into a fabric, per direction: a port's,
  // unless the entry gives the ports' sum (several ports that all face the
  // fabric, modelled as one cable, as bonded NVLinks are).
  Bandwidth fabric_bandwidth;
  std::string host_interface;
  std::string source;
};

struct StorageSpec {
  std::string id;
  std::string name;
  std::string kind;  // "nvme", "hdd", "network_fs"
  Bandwidth read_bandwidth;
  Bandwidth write_bandwidth;
  TimePs read_latency = 0;
  Bytes block = 4096;  // smallest unit a read moves
  std::string source;
};

}  // namespace simctl
