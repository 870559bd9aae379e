#include "sim/report/costs.hpp"

#include <cstdio>

#include "sim/config/config_schema.hpp"

namespace simctl {
namespace {

double non_negative(const ConfigNode& section, std::string_view key, double fallback) {
  if (!section.has(key)) return fallback;
  const double value = section.number(key);
  if (value < 0.0) section.child(key).fail("must be >= 0");
  return value;
}

OwnedSpec parse_owned(const ConfigNode& node) {
  expect_section(node, "pricing.owned");
  OwnedSpec o;
  o.gpu_price = node.number("gpu_price");
  if (o.gpu_price <= 0.0) node.child("gpu_price").fail("must be > 0 (the purchase price of one GPU installed)");
  o.network_port_price = non_negative(node, "network_port_price", o.network_port_price);
  o.amortisation_years = non_negative(node, "amortisation_years", o.amortisation_years);
  if (o.amortisation_years <= 0.0 || o.amortisation_years > 30.0)
    node.child("amortisation_years").fail("must be in (0, 30] (the years the purchase is spread over)");
  return o;
}

PricingSpec parse_pricing(const ConfigNode& node) {
  expect_section(node, "pricing");
  PricingSpec p;
  p.gpu_hour_price = node.number("gpu_hour_price");
  if (p.gpu_hour_price <= 0.0) node.child("gpu_hour_price").fail("must be > 0 (the price of one GPU for one hour)");
  p.currency = node.string_or("currency", p.currency);
  if (auto owned = node.optional_child("owned")) p.owned = parse_owned(*owned);
  return p;
}

constexpr double kSecondsPerYear = 365.25 * 24 * 3600;

std::string owned_assumptions(const CostSpec& spec, double ports_per_gpu) {
  const OwnedSpec& o = *spec.pricing->owned;
  const std::string& cur = spec.pricing->currency;
  char text[320];
  std::snprintf(text, sizeof text, "%.0f %s per GPU installed, %.2g NIC ports per GPU at %.0f %s, over %.3g years",
                o.gpu_price, cur.c_str(), ports_per_gpu, o.network_port_price, cur.c_str(), o.amortisation_years);
  std::string out = text;
  if (!spec.power) return out + "; electricity not counted (no power section)";
  std::snprintf(text, sizeof text, "; electricity at %.3g %s/kWh, PUE %.3g", spec.power->electricity_price_per_kwh,
                cur.c_str(), spec.power->pue);
  return out + text;
}

void add_owned(const CostSpec& spec, double step_s, double tokens_per_step, std::size_t gpus, double ports_per_gpu,
               CostReport& r) {
  const OwnedSpec& o = *spec.pricing->owned;
  r.owned = true;
  const double per_gpu = o.gpu_price + ports_per_gpu * o.network_port_price;
  r.owned_hardware_per_step = per_gpu * static_cast<double>(gpus) * step_s / (o.amortisation_years * kSecondsPerYear);
  r.owned_cost_per_step = r.owned_hardware_per_step + r.energy_cost_per_step;
  r.owned_cost_per_million_tokens = tokens_per_step > 0 ? r.owned_cost_per_step / tokens_per_step * 1e6 : 0.0;
  r.owned_assumptions = owned_assumptions(spec, ports_per_gpu);
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
                         const std::vector<GpuActivity>& gpus, double nic_ports_per_gpu) {
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
  if (spec.pricing && spec.pricing->owned) add_owned(spec, step_s, tokens_per_step, gpus.size(), nic_ports_per_gpu, r);
  return r;
}

}  // namespace simctl
