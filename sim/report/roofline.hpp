#pragma once
// A roofline view of one rank's compute ops on a device: ops grouped by name
// (every layer's "qkv" together, every CNN "conv.wgrad" together), each group
// with its FLOPs, bytes, arithmetic intensity, the ridge point its kernels
// see, and the time and FLOP/s the compute model (compute_model.hpp) gives it.
// Which side of the ridge a group falls on comes from the model's per-op
// estimate, never from its kind.
#include <cstdint>
#include <string>
#include <vector>

#include "models/devices/compute_model.hpp"
#include "workloads/trace.hpp"

namespace simctl {

// Ops of one name once the layer index is dropped: "layer7.qkv.dgrad" ->
// "qkv.dgrad", "layer7.ln2" -> "ln2", "layer2.3.conv1.wgrad" (ResNet stage 2,
// block 3) -> "conv1.wgrad"; outside numbered blocks every digit goes:
// "conv12.wgrad" -> "conv.wgrad", "bn3" -> "bn".
std::string op_group_name(const std::string& op_name);

struct OpGroup {
  std::string name;
  ComputeKind kind = ComputeKind::other;
  std::vector<ComputeWork> work;  // one per op, in trace order
};

// The compute ops of `ops` by group, in order of first appearance.
std::vector<OpGroup> group_compute_ops(const std::vector<Op>& ops);

struct RooflineGroup {
  std::string name;
  ComputeKind kind = ComputeKind::other;
  std::int64_t ops = 0;
  double flops = 0.0;
  double bytes = 0.0;           // read + written in device memory
  double time_s = 0.0;          // the model's time, launch overhead included
  double compute_time_s = 0.0;  // flops at the sustained rate of each op's unit
  double memory_time_s = 0.0;   // bytes at the sustained memory bandwidth
  // Sustained FLOP/s of the group's kernels over sustained bandwidth: the
  // intensity at which this kind of kernel turns compute-bound on the device.
  double ridge_flop_per_byte = 0.0;
  KernelBound bound = KernelBound::compute;  // the bound of most of the group's time

  double intensity_flop_per_byte() const { return bytes > 0.0 ? flops / bytes : 0.0; }
  double attained_flops_per_s() const { return time_s > 0.0 ? flops / time_s : 0.0; }
};

struct DeviceRoofline {
  std::string id;
  std::string name;
  std::string memory_kind;
  DType matrix_dtype = DType::bf16;      // the workload's compute dtype
  double peak_matrix_flops_per_s = 0.0;  // peak(matrix_dtype): tensor cores, or the FMA rate on a CPU
  double peak_vector_flops_per_s = 0.0;  // peak(fp32): the non-tensor units
  double peak_bandwidth_bytes_per_s = 0.0;
  double sustained_bandwidth_bytes_per_s = 0.0;
  std::vector<RooflineGroup> groups;
  // Attention kernels of the trace this device has no fit for (cuDNN's on a
  // CPU or an older GPU), priced as FlashAttention-2 instead, which every
  // device prices; empty when none was.
  std::vector<FusedAttention> attention_priced_as_flash2;

  // Peak ridge points: the intensity where peak FLOP/s meets peak bandwidth.
  double matrix_ridge_flop_per_byte() const { return peak_matrix_flops_per_s / peak_bandwidth_bytes_per_s; }
  double vector_ridge_flop_per_byte() const { return peak_vector_flops_per_s / peak_bandwidth_bytes_per_s; }
};

// Prices every group on `device` with the compute model.
DeviceRoofline price_roofline(const GpuSpec& device, const std::vector<OpGroup>& groups, DType matrix_dtype);

}  // namespace simctl
