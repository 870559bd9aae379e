#include "models/devices/gpu_variant.hpp"

#include <cstdio>
#include <stdexcept>

namespace simctl {
namespace {

std::string number_text(double value, const char* unit) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g %s", value, unit);
  return buffer;
}

void check_power_limit(const GpuSpec& base, double limit_watts) {
  if (!base.compute.power_model) {
    throw GpuVariantError("power_limit", base.id +
                                             " has no power model in the catalogue (no sustained-clock measurement "
                                             "for its architecture), so a power limit cannot be priced; valid fields "
                                             "for it are name, memory_capacity, memory_bandwidth and clock_scale");
  }
  const PowerModel& model = *base.compute.power_model;
  const double idle = model.idle_fraction * power_model_tdp(model, base.tdp_watts);
  if (!(limit_watts > idle)) {
    throw GpuVariantError("power_limit", "must exceed " + base.id + "'s idle draw (" + number_text(idle, "W") +
                                             "), got " + number_text(limit_watts, "W"));
  }
}

std::string describe_variant(const GpuSpec& base, const GpuVariant& v) {
  std::string out = "variant of " + base.id + ":";
  const auto add = [&](const std::string& field) { out += (out.back() == ':' ? " " : ", ") + field; };
  if (v.memory_capacity) add("memory_capacity " + number_text(static_cast<double>(*v.memory_capacity) / 1e9, "GB"));
  if (v.memory_bandwidth) add("memory_bandwidth " + number_text(v.memory_bandwidth->bytes_per_s / 1e12, "TB/s"));
  if (v.power_limit_watts) add("power_limit " + number_text(*v.power_limit_watts, "W"));
  if (v.clock_scale) add("clock_scale " + number_text(*v.clock_scale, "x"));
  if (out.back() == ':') out += " no changes";
  return out;
}

}  // namespace

GpuSpec derive_gpu_variant(const GpuSpec& base, const GpuVariant& v) {
  GpuSpec out = base;
  out.id = v.id;
  out.variant_of = base.id;
  out.name = base.name + ", variant " + v.id;
  if (v.memory_capacity) out.memory_capacity = *v.memory_capacity;
  if (v.memory_bandwidth) out.memory_bandwidth = *v.memory_bandwidth;
  const double scale = v.clock_scale.value_or(1.0);
  if (v.clock_scale) {
    for (DType d : kAllDTypes) {
      if (const auto& rate = base.peak_rate.find(d)) out.peak_rate.set(d, FlopRate{rate->flops_per_s * scale});
    }
  }
  if (v.power_limit_watts) {
    check_power_limit(base, *v.power_limit_watts);
    out.tdp_watts = *v.power_limit_watts;
  }
  if (base.compute.power_model) {
    out.compute.sustained_tensor_slowdown =
        sustained_tensor_slowdown(*base.compute.power_model, base.tdp_watts, out.tdp_watts, scale);
  }
  const std::string what = describe_variant(base, v) + " (declared at " + v.declared_at + ")";
  for (auto& [group, source] : out.sources) source = what + "; base: " + source;
  return out;
}

}  // namespace simctl
