#include <exception>
#include <string>

#include "models/devices/catalogue_parsers.hpp"

namespace simctl {
namespace {

DTypeTable<FlopRate> read_peak_rates(const ConfigNode& block) {
  DTypeTable<FlopRate> rates;
  for (const auto& [key, node] : block.entries()) {
    if (key == "source") continue;
    rates.set(read_dtype_key(node, key), node.as_flop_rate());
  }
  if (rates.listed() == "none") block.fail("lists no dtype rates; give at least one of fp32, tf32, bf16, fp16, fp8");
  return rates;
}

// Efficiency per dtype, e.g. {bf16: 0.84, fp16: 0.84}.
DTypeTable<double> read_efficiency_table(const ConfigNode& block) {
  DTypeTable<double> table;
  for (const auto& [key, node] : block.entries()) {
    DType d = read_dtype_key(node, key);
    double value = node.as_number();
    if (!(value > 0.0 && value <= 1.0)) node.fail("must be a fraction in (0, 1], got " + std::to_string(value));
    table.set(d, value);
  }
  return table;
}

GemmTile read_tile(const ConfigNode& node) {
  node.expect_keys({"m", "n", "relative_efficiency"});
  return {static_cast<int>(node.positive_integer("m")), static_cast<int>(node.positive_integer("n")),
          read_fraction(node, "relative_efficiency")};
}

double read_non_negative(const ConfigNode& block, std::string_view key) {
  ConfigNode node = block.child(key);
  double value = node.as_number();
  if (value < 0.0) node.fail("must not be negative, got " + std::to_string(value));
  return value;
}

// One number for every dtype the part lists, or one per dtype
// ({bf16: 250, fp8: 523}); every dtype with a GEMM efficiency needs one.
DTypeTable<double> read_k_overhead(const ConfigNode& node, const DTypeTable<double>& max_efficiency) {
  DTypeTable<double> table;
  if (node.is_map()) {
    for (const auto& [key, value] : node.entries()) {
      const double steps = value.as_number();
      if (steps < 0.0) value.fail("must not be negative, got " + std::to_string(steps));
      table.set(read_dtype_key(value, key), steps);
    }
  }
  for (DType d : kAllDTypes) {
    if (!max_efficiency.has(d)) continue;
    if (!node.is_map()) {
      const double steps = node.as_number();
      if (steps < 0.0) node.fail("must not be negative, got " + std::to_string(steps));
      table.set(d, steps);
    } else if (!table.has(d)) {
      node.fail("has no entry for " + std::string(to_string(d)) + ", which max_efficiency lists");
    }
  }
  return table;
}

GemmEfficiencyParams read_gemm(const ConfigNode& block, const DTypeTable<FlopRate>& peaks) {
  block.expect_keys({"max_efficiency", "tiles", "k_overhead", "tail_split_efficiency"});
  GemmEfficiencyParams gemm;
  ConfigNode max_node = block.child("max_efficiency");
  gemm.max_efficiency = read_efficiency_table(max_node);
  for (DType d : kAllDTypes) {
    if (peaks.has(d) && !gemm.max_efficiency.has(d))
      max_node.fail("has no entry for " + std::string(to_string(d)) + ", which peak_dense lists");
  }
  for (const ConfigNode& tile : block.child("tiles").elements()) gemm.tiles.push_back(read_tile(tile));
  if (gemm.tiles.empty()) block.child("tiles").fail("needs at least one tile");
  gemm.k_overhead = read_k_overhead(block.child("k_overhead"), gemm.max_efficiency);
  if (block.has("tail_split_efficiency")) gemm.tail_split_efficiency = read_fraction(block, "tail_split_efficiency");
  return gemm;
}

// {64: 0.32, 128: 0.37, 256: 0.35}: head dims ascending.
std::vector<std::pair<int, double>> read_head_dim_table(const ConfigNode& block) {
  std::vector<std::pair<int, double>> table;
  for (const auto& [key, node] : block.entries()) {
    int head_dim = 0;
    try {
      head_dim = std::stoi(key);
    } catch (const std::exception&) {
      node.fail("key '" + key + "' must be a head dimension (a positive integer)");
    }
    if (head_dim <= 0 || (!table.empty() && head_dim <= table.back().first))
      node.fail("head dimensions must be positive and ascending, got " + key);
    const double value = node.as_number();
    if (!(value > 0.0 && value <= 1.0)) node.fail("must be a fraction in (0, 1], got " + std::to_string(value));
    table.emplace_back(head_dim, value);
  }
  if (table.empty()) block.fail("needs at least one head dimension");
  return table;
}

AttentionPassFit read_pass_fit(const ConfigNode& block) {
  block.expect_keys({"max_efficiency", "seq_overhead", "causal_factor"});
  AttentionPassFit fit;
  fit.max_efficiency = read_head_dim_table(block.child("max_efficiency"));
  fit.seq_overhead = read_non_negative(block, "seq_overhead");
  ConfigNode causal = block.child("causal_factor");
  fit.causal_factor = causal.as_number();
  if (!(fit.causal_factor > 0.0 && fit.causal_factor <= 2.0)) causal.fail("must be in (0, 2]");
  return fit;
}

AttentionKernelFit read_kernel_fit(const ConfigNode& block) {
  block.expect_keys({"dtypes", "forward", "backward", "source"});
  AttentionKernelFit fit;
  for (const ConfigNode& d : block.child("dtypes").elements()) fit.dtypes.set(read_dtype_key(d, d.as_string()), true);
  fit.forward = read_pass_fit(block.child("forward"));
  fit.backward = read_pass_fit(block.child("backward"));
  read_source(block);
  return fit;
}

// One fit (a mapping) or several (a sequence), each for its own formats.
std::vector<AttentionKernelFit> read_fits_of_kernel(const ConfigNode& node) {
  if (!node.is_sequence()) return {read_kernel_fit(node)};
  std::vector<AttentionKernelFit> fits;
  for (const ConfigNode& element : node.elements()) {
    AttentionKernelFit fit = read_kernel_fit(element);
    for (const AttentionKernelFit& earlier : fits) {
      for (DType d : kAllDTypes) {
        if (fit.dtypes.has(d) && earlier.dtypes.has(d))
          element.child("dtypes").fail(std::string(to_string(d)) +
                                       " has a fit above already; give each format one fit");
      }
    }
    fits.push_back(std::move(fit));
  }
  if (fits.empty()) node.fail("needs at least one fit");
  return fits;
}

std::map<FusedAttention, std::vector<AttentionKernelFit>> read_kernel_fits(const ConfigNode& block) {
  std::map<FusedAttention, std::vector<AttentionKernelFit>> fits;
  for (const auto& [key, node] : block.entries()) {
    const auto kernel = fused_attention_named(key);
    if (!kernel) node.fail("unknown attention kernel '" + key + "'; valid are flash2, flash3, cudnn");
    fits[*kernel] = read_fits_of_kernel(node);
  }
  return fits;
}

AttentionEfficiencyParams read_attention(const ConfigNode& block) {
  block.expect_keys({"max_efficiency", "head_dim_overhead", "kv_length_overhead", "kernels"});
  AttentionEfficiencyParams attention;
  attention.max_efficiency = read_efficiency_table(block.child("max_efficiency"));
  attention.head_dim_overhead = read_non_negative(block, "head_dim_overhead");
  attention.kv_length_overhead = read_non_negative(block, "kv_length_overhead");
  if (auto kernels = block.optional_child("kernels")) attention.kernels = read_kernel_fits(*kernels);
  return attention;
}

PowerModel read_power_model(const ConfigNode& block) {
  block.expect_keys({"idle_fraction", "settled_clock_at_tdp", "slowdown_at_tdp", "source"});
  PowerModel model{read_fraction(block, "idle_fraction"), read_fraction(block, "settled_clock_at_tdp"),
                   block.child("slowdown_at_tdp").as_number()};
  if (model.idle_fraction >= 1.0) block.child("idle_fraction").fail("must be below 1 (idle draw under the TDP)");
  if (model.slowdown_at_tdp < 1.0)
    block.child("slowdown_at_tdp").fail("must be at least 1 (a sustained kernel is not faster than a burst of it)");
  read_source(block);
  return model;
}

// The slowdown is the power model's at the part's TDP, or given outright
// where a part has no model (never both: one would contradict the other).
void read_sustained_clock(const ConfigNode& block, GpuSpec& gpu) {
  if (auto die = block.optional_child("same_die_as")) {
    for (const char* other : {"power_model", "sustained_tensor_slowdown"}) {
      if (block.has(other)) block.child(other).fail("follows from same_die_as; give one or the other");
    }
    gpu.compute.die_part = die->as_string();  // resolved once the die's part is read (resolve_same_die)
    return;
  }
  if (auto model = block.optional_child("power_model")) {
    if (block.has("sustained_tensor_slowdown"))
      block.child("sustained_tensor_slowdown").fail("follows from power_model; give one or the other");
    gpu.compute.power_model = read_power_model(*model);
    gpu.compute.sustained_tensor_slowdown =
        sustained_tensor_slowdown(*gpu.compute.power_model, gpu.tdp_watts, gpu.tdp_watts);
    return;
  }
  if (auto slowdown = block.optional_child("sustained_tensor_slowdown")) {
    gpu.compute.sustained_tensor_slowdown = slowdown->as_number();
    if (gpu.compute.sustained_tensor_slowdown < 1.0) {
      slowdown->fail("must be at least 1 (a sustained kernel is not faster than a burst of it)");
    }
  }
}

// The ratio of the two parts' tensor peaks, taken at bf16 (both must list
// it): Blackwell parts' datasheet peaks scale alike across tensor formats.
double datasheet_peak_ratio(const ConfigNode& at, const GpuSpec& gpu, const GpuSpec& die) {
  const auto& mine = gpu.peak_rate.find(DType::bf16);
  const auto& theirs = die.peak_rate.find(DType::bf16);
  if (!mine || !theirs) at.fail("same_die_as needs a bf16 peak on both parts, to relate their clocks");
  return mine->flops_per_s / theirs->flops_per_s;
}

void read_compute_model(const ConfigNode& block, GpuSpec& gpu) {
  block.expect_keys({"sm_count", "launch_overhead", "memory_efficiency", "vector_efficiency",
                     "sustained_tensor_slowdown", "power_model", "same_die_as", "gemm", "attention", "source"});
  gpu.compute.sm_count = static_cast<int>(block.positive_integer("sm_count"));
  gpu.launch_overhead = block.time("launch_overhead");
  gpu.compute.memory_efficiency = read_fraction(block, "memory_efficiency");
  gpu.compute.vector_efficiency = read_fraction(block, "vector_efficiency");
  read_sustained_clock(block, gpu);
  gpu.compute.gemm = read_gemm(block.child("gemm"), gpu.peak_rate);
  gpu.compute.attention = read_attention(block.child("attention"));
  gpu.sources["compute_model"] = read_source(block);
}

void read_memory(const ConfigNode& block, GpuSpec& gpu) {
  block.expect_keys({"kind", "capacity", "bandwidth", "source"});
  gpu.memory_kind = block.string("kind");
  gpu.memory_capacity = block.size("capacity");
  if (gpu.memory_capacity <= 0) block.child("capacity").fail("capacity must be positive");
  gpu.memory_bandwidth = block.bandwidth("bandwidth");
  gpu.sources["memory"] = read_source(block);
}

void read_interconnect(const ConfigNode& block, GpuSpec& gpu) {
  block.expect_keys({"host_interface", "scale_up_link", "scale_up_bandwidth_per_direction", "source"});
  gpu.host_interface = block.string("host_interface");
  gpu.scale_up_link = block.string("scale_up_link");
  // A part without a GPU-to-GPU fabric has no bandwidth to state.
  if (gpu.scale_up_link != "none") gpu.scale_up_bandwidth = block.bandwidth("scale_up_bandwidth_per_direction");
  gpu.sources["interconnect"] = read_source(block);
}

void read_power(const ConfigNode& block, GpuSpec& gpu) {
  block.expect_keys({"tdp_watts", "source"});
  ConfigNode watts = block.child("tdp_watts");
  gpu.tdp_watts = watts.as_number();
  if (gpu.tdp_watts <= 0) watts.fail("must be positive");
  gpu.sources["power"] = read_source(block);
}

}  // namespace

GpuSpec parse_gpu(const std::string& id, const ConfigNode& entry) {
  entry.expect_keys({"name", "architecture", "peak_dense", "memory", "interconnect", "power", "compute_model"});
  GpuSpec gpu;
  gpu.id = id;
  gpu.name = entry.string("name");
  gpu.architecture = entry.string("architecture");
  read_memory(entry.child("memory"), gpu);
  read_interconnect(entry.child("interconnect"), gpu);
  read_power(entry.child("power"), gpu);
  read_compute_figures(entry, gpu);
  return gpu;
}

void read_compute_figures(const ConfigNode& entry, GpuSpec& spec) {
  ConfigNode peak = entry.child("peak_dense");
  spec.peak_rate = read_peak_rates(peak);
  spec.sources["peak_dense"] = read_source(peak);
  read_compute_model(entry.child("compute_model"), spec);
}

void resolve_same_die(const ConfigNode& entry, GpuSpec& gpu, const GpuSpec* die) {
  const ConfigNode at = entry.child("compute_model").child("same_die_as");
  if (!die) at.fail("names no GPU of the catalogue read so far; list the die's part before " + gpu.id);
  if (die->id == gpu.id || !die->compute.die_part.empty())
    at.fail("must name a part with its own power_model (" + die->id + " has none of its own)");
  if (!die->compute.power_model) at.fail(die->id + " has no power_model to share");
  if (die->architecture != gpu.architecture)
    at.fail(die->id + " is " + die->architecture + ", not " + gpu.architecture + "; one die has one architecture");
  PowerModel model = *die->compute.power_model;
  model.die_tdp_watts = die->tdp_watts;
  model.datasheet_peak_over_die = datasheet_peak_ratio(at, gpu, *die);
  gpu.compute.power_model = model;
  gpu.compute.sustained_tensor_slowdown = sustained_tensor_slowdown(model, gpu.tdp_watts, gpu.tdp_watts);
}

}  // namespace simctl
