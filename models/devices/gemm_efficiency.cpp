#include "models/devices/gemm_efficiency.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace simctl {
namespace {

double max_efficiency_for(const DTypeTable<double>& table, const GpuSpec& gpu, DType dtype, const char* what) {
  if (const auto& value = table.find(dtype)) return *value;
  throw std::invalid_argument(gpu.name + " (" + gpu.id + ") has no " + what + " efficiency for " +
                              std::string(to_string(dtype)) + "; it has " + table.listed());
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Fraction of the SM-time a tiling spends on useful output elements. Full
// waves keep every SM busy; the last, partial wave either idles the SMs it
// does not fill (classic wave quantisation) or, with a stream-K style
// scheduler (tail_split_efficiency > 0), is split along K over all SMs at that
// efficiency, costing remainder/sm_count/efficiency of a wave, at most one.
double tile_utilisation(std::int64_t m, std::int64_t n, std::int64_t batch, std::int64_t tile_m, std::int64_t tile_n,
                        std::int64_t sm_count, double tail_split_efficiency) {
  const std::int64_t tiles = ceil_div(m, tile_m) * ceil_div(n, tile_n) * batch;
  const std::int64_t remainder = tiles % sm_count;
  double waves = static_cast<double>(tiles / sm_count);
  if (remainder > 0) {
    const double tail = static_cast<double>(remainder) / static_cast<double>(sm_count);
    waves += tail_split_efficiency > 0.0 ? std::min(1.0, tail / tail_split_efficiency) : 1.0;
  }
  const double useful = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(batch);
  const double occupied = waves * static_cast<double>(sm_count) * static_cast<double>(tile_m * tile_n);
  return useful / occupied;
}

double saturation(std::int64_t length, double overhead) {
  return static_cast<double>(length) / (static_cast<double>(length) + overhead);
}

}  // namespace

double gemm_efficiency(const GpuSpec& gpu, DType dtype, std::int64_t m, std::int64_t n, std::int64_t k,
                       std::int64_t batch) {
  const GemmEfficiencyParams& params = gpu.compute.gemm;
  const double max_efficiency = max_efficiency_for(params.max_efficiency, gpu, dtype, "GEMM");
  if (m <= 0 || n <= 0 || k <= 0) return max_efficiency;
  batch = std::max<std::int64_t>(batch, 1);
  double best = 0.0;
  for (const GemmTile& tile : params.tiles) {
    const int sms = gpu.compute.sm_count;
    const double tail = params.tail_split_efficiency;
    const double utilisation = std::max(tile_utilisation(m, n, batch, tile.m, tile.n, sms, tail),
                                        tile_utilisation(m, n, batch, tile.n, tile.m, sms, tail));
    best = std::max(best, tile.relative_efficiency * utilisation);
  }
  return max_efficiency * best * saturation(k, max_efficiency_for(params.k_overhead, gpu, dtype, "GEMM k_overhead"));
}

namespace {

// Linear in the head dimension between the fitted ones, flat outside them.
double max_efficiency_at(const std::vector<std::pair<int, double>>& table, std::int64_t head_dim) {
  if (head_dim <= table.front().first) return table.front().second;
  for (std::size_t i = 1; i < table.size(); ++i) {
    const auto [d1, e1] = table[i];
    if (head_dim <= d1) {
      const auto [d0, e0] = table[i - 1];
      const double t = static_cast<double>(head_dim - d0) / static_cast<double>(d1 - d0);
      return e0 + t * (e1 - e0);
    }
  }
  return table.back().second;
}

double fitted_efficiency(const AttentionPassFit& fit, std::int64_t kv_len, std::int64_t head_dim, bool causal) {
  double efficiency = head_dim > 0 ? max_efficiency_at(fit.max_efficiency, head_dim) : fit.max_efficiency.back().second;
  if (kv_len > 0) {
    // A causal query row visits half the keys on average.
    const double keys = causal ? 0.5 * static_cast<double>(kv_len) : static_cast<double>(kv_len);
    efficiency *= keys / (keys + fit.seq_overhead);
  }
  return causal ? efficiency * fit.causal_factor : efficiency;
}

double generic_efficiency(const GpuSpec& gpu, DType dtype, std::int64_t kv_len, std::int64_t head_dim) {
  const AttentionEfficiencyParams& params = gpu.compute.attention;
  double efficiency = max_efficiency_for(params.max_efficiency, gpu, dtype, "attention");
  if (kv_len > 0) efficiency *= saturation(kv_len, params.kv_length_overhead);
  if (head_dim > 0) efficiency *= saturation(head_dim, params.head_dim_overhead);
  return efficiency;
}

// The query rows (forward) or key rows (backward) of one (batch, head) that
// one thread block of a fused attention kernel takes: FlashAttention-2's
// kBlockM and kBlockN for head dims up to 128. cuDNN's Hopper kernels behave
// alike: on the H200 their per-call times are flat from 2 to 16 heads of 1024
// tokens (16 to 128 blocks on 132 SMs) and rise beyond
// (models/devices/measured/nvidia_h200_small_models_2026-11-28.json).
constexpr std::int64_t kAttentionTileRows = 128;

// The fraction of the SMs a fused attention kernel's blocks occupy, at most
// 1. Each block runs its loop over the keys (or queries) on one SM, so a
// kernel with fewer blocks than SMs takes as long as a full wave would: a
// small model's few heads, or a decoder's micro-batch of one, leave most of
// the GPU idle. A decode kernel (fewer query rows than a tile) splits the
// keys over blocks instead (FlashDecoding), so it is not counted here.
double attention_fill(const GpuSpec& gpu, const ComputeWork& work) {
  const std::int64_t rows = work.backward ? work.n : work.m;
  if (rows < kAttentionTileRows || work.batch <= 0 || gpu.compute.sm_count <= 0) return 1.0;
  const std::int64_t blocks = work.batch * ceil_div(rows, kAttentionTileRows);
  return std::min(1.0, static_cast<double>(blocks) / static_cast<double>(gpu.compute.sm_count));
}

double attention_efficiency_on_full_gpu(const GpuSpec& gpu, const ComputeWork& work) {
  const AttentionEfficiencyParams& attention = gpu.compute.attention;
  if (const AttentionKernelFit* kernel = attention.fit_for(work.attention_kernel, work.dtype)) {
    return std::min(1.0,
                    fitted_efficiency(work.backward ? kernel->backward : kernel->forward, work.n, work.k, work.causal));
  }
  if (work.attention_kernel != FusedAttention::flash2) {
    throw std::invalid_argument(gpu.name + " (" + gpu.id + ") has no fitted efficiency for attention kernel " +
                                std::string(to_string(work.attention_kernel)) + " in " +
                                std::string(to_string(work.dtype)) +
                                (attention.runs(work.attention_kernel) ? " (fitted for other dtypes)" : "") +
                                "; flash2 is priced on every GPU");
  }
  return generic_efficiency(gpu, work.dtype, work.n, work.k);
}

}  // namespace

double attention_efficiency(const GpuSpec& gpu, const ComputeWork& work) {
  return attention_efficiency_on_full_gpu(gpu, work) * attention_fill(gpu, work);
}

}  // namespace simctl
