#include "sim/report/roofline.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

namespace simctl {
namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// The transformer's "layerN." prefix names the block, not the op.
std::string without_layer_prefix(const std::string& name) {
  constexpr std::string_view kLayer = "layer";
  if (name.rfind(kLayer, 0) != 0) return name;
  std::size_t i = kLayer.size();
  while (i < name.size() && is_digit(name[i])) ++i;
  if (i == kLayer.size() || i >= name.size() || name[i] != '.') return name;
  // A CNN stage's blocks are numbered too: "layer2.3.conv1" is conv1 of
  // block 3 of stage 2.
  for (std::size_t next = i + 1; next < name.size() && is_digit(name[next]);) {
    std::size_t end = next;
    while (end < name.size() && is_digit(name[end])) ++end;
    if (end >= name.size() || name[end] != '.') break;
    i = end;
    next = end + 1;
  }
  return name.substr(i + 1);
}

}  // namespace

std::string op_group_name(const std::string& op_name) {
  // Inside a numbered block the digits name a role ("ln1" and "ln2" of a
  // transformer block, "conv1" to "conv3" of a bottleneck); elsewhere they
  // number layers ("conv12" of a plain CNN).
  const std::string in_block = without_layer_prefix(op_name);
  if (in_block != op_name) return in_block;
  std::string out;
  for (char c : op_name) {
    if (!is_digit(c)) out += c;
  }
  return out;
}

std::vector<OpGroup> group_compute_ops(const std::vector<Op>& ops) {
  std::vector<OpGroup> groups;
  std::map<std::pair<std::string, ComputeKind>, std::size_t> index;
  for (const Op& op : ops) {
    const auto* work = std::get_if<ComputeWork>(&op.work);
    if (work == nullptr) continue;
    const auto key = std::make_pair(op_group_name(op.name), work->kind);
    auto [at, added] = index.try_emplace(key, groups.size());
    if (added) groups.push_back({key.first, work->kind, {}});
    groups[at->second].work.push_back(*work);
  }
  return groups;
}

namespace {

// One trace is priced on every device, but a fused attention kernel is
// fitted only where it runs (cuDNN's on Hopper and Blackwell): elsewhere the
// attention is priced as FlashAttention-2, and the device says so.
ComputeWork priceable_on(const GpuSpec& device, ComputeWork work, DeviceRoofline& out) {
  if (work.kind != ComputeKind::attention || work.attention_kernel == FusedAttention::flash2) return work;
  if (device.compute.attention.prices(work.attention_kernel, work.dtype)) return work;
  auto& substituted = out.attention_priced_as_flash2;
  if (std::find(substituted.begin(), substituted.end(), work.attention_kernel) == substituted.end())
    substituted.push_back(work.attention_kernel);
  work.attention_kernel = FusedAttention::flash2;
  return work;
}

}  // namespace

DeviceRoofline price_roofline(const GpuSpec& device, const std::vector<OpGroup>& groups, DType matrix_dtype) {
  DeviceRoofline out;
  out.id = device.id;
  out.name = device.name;
  out.memory_kind = device.memory_kind;
  out.matrix_dtype = matrix_dtype;
  out.peak_matrix_flops_per_s = device.peak(matrix_dtype).flops_per_s;
  out.peak_vector_flops_per_s = device.peak(DType::fp32).flops_per_s;
  out.peak_bandwidth_bytes_per_s = device.memory_bandwidth.bytes_per_s;
  out.sustained_bandwidth_bytes_per_s = sustained_memory_bandwidth(device);
  for (const OpGroup& group : groups) {
    RooflineGroup row;
    row.name = group.name;
    row.kind = group.kind;
    std::array<double, 3> time_by_bound{};  // indexed by KernelBound
    for (const ComputeWork& work : group.work) {
      const ComputeEstimate e = estimate_compute(device, priceable_on(device, work, out));
      row.ops += 1;
      row.flops += work.flops;
      row.bytes += work.memory_bytes;
      row.time_s += ps_to_seconds(e.time);
      row.compute_time_s += e.compute_time_s;
      row.memory_time_s += e.memory_time_s;
      time_by_bound[static_cast<std::size_t>(e.bound)] += ps_to_seconds(e.time);
    }
    // Ties go to the first bound listed: compute, then memory, then launch.
    row.bound =
        static_cast<KernelBound>(std::max_element(time_by_bound.begin(), time_by_bound.end()) - time_by_bound.begin());
    if (row.compute_time_s > 0.0)
      row.ridge_flop_per_byte = row.flops / row.compute_time_s / out.sustained_bandwidth_bytes_per_s;
    out.groups.push_back(std::move(row));
  }
  return out;
}

}  // namespace simctl
