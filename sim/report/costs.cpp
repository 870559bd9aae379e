#include "sim/report/costs.hpp"

#include "sim/config/config_schema.hpp"

namespace simctl {
namespace {

double non_negative(const ConfigNode& section, std::string_view key, double fallback) {
  if (!section.has(key)) return fallback;
  const double value = section.number(key);
  if (value < 0.0) section.child(key).fail("must be >= 0");
  return value;
}

PricingSpec parse_pricing(const ConfigNode& node) {
  expect_section(node, "pricing");
  PricingSpec p;
  p.gpu_hour_price = node.number("gpu_hour_price");
  if (p.gpu_hour_price <= 0.0) node.child("gpu_hour_price").fail("must be > 0 (the price of one GPU for one hour)");
  p.currency = node.string_or("currency", p.currency);
  return p;
}

PowerSpec parse_power(const ConfigNode& node) {
  expect_section(node, "power");
  PowerSpec p;
  p.gpu_idle_fraction = non_negative(node, "gpu_idle_fraction", p.gpu_idle_fraction);
  if (p.gpu_idle_fraction > 1.0) node.child("gpu_idle_fraction").fail("must be between 0 and 1 (a fraction of TDP)");
  p.node_watts = non_negative(node, "node_watts", p.node_watts);
  p.pue = non_negative(node, "pue", p.pue);
  if (p.pue < 1.0) node.child("pue").fail("must be >= 1 (total facility power / IT power)");
  p.electricity_price_per_kwh = non_negative(node, "electricity_price_per_kwh", p.electricity_price_per_kwh);
  return p;
}

}  // namespace

CostSpec parse_costs(const ConfigNode& root) {
  CostSpec spec;
  if (auto node = root.optional_child("pricing")) spec.pricing = parse_pricing(*node);
  if (auto node = root.optional_child("power")) spec.power = parse_power(*node);
  return spec;
}

CostReport compute_costs(const CostSpec& spec, TimePs step, double tokens_per_step, int nodes,
                         const std::vector<GpuActivity>& gpus) {
  CostReport r;
  const double step_s = ps_to_seconds(step);
  if (spec.pricing) {
    r.priced = true;
    r.currency = spec.pricing->currency;
    r.cost_per_step = spec.pricing->gpu_hour_price * static_cast<double>(gpus.size()) * step_s / 3600.0;
    r.cost_per_million_tokens = tokens_per_step > 0 ? r.cost_per_step / tokens_per_step * 1e6 : 0.0;
  }
  if (spec.power) {
    const PowerSpec& p = *spec.power;
    r.powered = true;
    for (const GpuActivity& g : gpus) {
      const double idle_w = p.gpu_idle_fraction * g.tdp_watts;
      r.gpu_energy_joules += step_s * idle_w + ps_to_seconds(g.compute) * (g.tdp_watts - idle_w);
    }
    r.total_energy_joules = (r.gpu_energy_joules + p.node_watts * nodes * step_s) * p.pue;
    r.average_power_watts = step_s > 0 ? r.total_energy_joules / step_s : 0.0;
    r.energy_cost_per_step = r.total_energy_joules / 3.6e6 * p.electricity_price_per_kwh;
    if (spec.pricing) r.currency = spec.pricing->currency;
  }
  return r;
}

}  // namespace simctl
