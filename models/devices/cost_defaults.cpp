#include "models/devices/cost_defaults.hpp"

#include "sim/config/config_node.hpp"
#include "sim/config/data_root.hpp"

namespace simctl {
namespace {

// `{<key>: number, source: text}`: the loader refuses a figure without a source.
double sourced(const ConfigNode& node, std::string_view key) {
  node.expect_keys({key, "source"});
  if (node.string("source").empty()) node.child("source").fail("every figure needs a source");
  const double value = node.number(key);
  if (value < 0.0) node.child(key).fail("must be >= 0");
  return value;
}

std::map<std::string, double> by_gpu(const ConfigNode& node, std::string_view key) {
  std::map<std::string, double> out;
  for (const auto& [gpu, entry] : node.entries()) out[gpu] = sourced(entry, key);
  return out;
}

}  // namespace

CostDefaults CostDefaults::load_file(const std::string& path) {
  const ConfigNode root = ConfigNode::load_file(path);
  root.expect_keys({"pricing", "owned", "power"});
  const ConfigNode pricing = root.child("pricing"), power = root.child("power"), owned = root.child("owned");
  pricing.expect_keys({"currency", "gpu_hour_price"});
  owned.expect_keys({"gpu_price", "network_port_price", "amortisation_years"});
  power.expect_keys({"gpu_idle_fraction", "pue", "electricity_price_per_kwh", "host_watts_per_gpu"});
  CostDefaults d;
  d.currency = pricing.string("currency");
  d.gpu_hour_price = by_gpu(pricing.child("gpu_hour_price"), "price");
  d.gpu_purchase_price = by_gpu(owned.child("gpu_price"), "price");
  d.network_port_price = sourced(owned.child("network_port_price"), "value");
  d.amortisation_years = sourced(owned.child("amortisation_years"), "value");
  d.gpu_idle_fraction = sourced(power.child("gpu_idle_fraction"), "value");
  d.pue = sourced(power.child("pue"), "value");
  d.electricity_price_per_kwh = sourced(power.child("electricity_price_per_kwh"), "value");
  d.host_watts_per_gpu = by_gpu(power.child("host_watts_per_gpu"), "watts");
  return d;
}

CostDefaults CostDefaults::load() { return load_file(data_root() + "/models/devices/cost_defaults.yaml"); }

}  // namespace simctl
