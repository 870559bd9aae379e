#include "sim/study/cost_defaults.hpp"

#include <set>

#include "sim/config/config_node.hpp"
#include "sim/config/data_root.hpp"
#include "sim/scenario/scenario.hpp"

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
  root.expect_keys({"pricing", "power"});
  const ConfigNode pricing = root.child("pricing"), power = root.child("power");
  pricing.expect_keys({"currency", "gpu_hour_price"});
  power.expect_keys({"gpu_idle_fraction", "pue", "electricity_price_per_kwh", "host_watts_per_gpu"});
  CostDefaults d;
  d.currency = pricing.string("currency");
  d.gpu_hour_price = by_gpu(pricing.child("gpu_hour_price"), "price");
  d.power.gpu_idle_fraction = sourced(power.child("gpu_idle_fraction"), "value");
  d.power.pue = sourced(power.child("pue"), "value");
  d.power.electricity_price_per_kwh = sourced(power.child("electricity_price_per_kwh"), "value");
  d.host_watts_per_gpu = by_gpu(power.child("host_watts_per_gpu"), "watts");
  return d;
}

CostDefaults CostDefaults::load() { return load_file(data_root() + "/models/devices/cost_defaults.yaml"); }

StudyCosts study_costs(const Scenario& s, const CostDefaults& defaults) {
  StudyCosts out{s.costs};
  std::set<int> nodes;
  for (std::uint32_t r = 0; r < s.trace.ranks.size(); ++r)
    nodes.insert(s.system.part(s.system.gpus()[s.trace.gpu_index(r)]).node);
  const auto mean_over_ranks = [&](const std::map<std::string, double>& table) -> std::optional<double> {
    double sum = 0.0;
    for (std::uint32_t r = 0; r < s.trace.ranks.size(); ++r) {
      auto it = table.find(s.system.part(s.system.gpus()[s.trace.gpu_index(r)]).model);
      if (it == table.end()) return std::nullopt;
      sum += it->second;
    }
    return s.trace.ranks.empty() ? std::nullopt : std::optional<double>(sum / s.trace.ranks.size());
  };
  if (!out.spec.pricing) {
    if (auto price = mean_over_ranks(defaults.gpu_hour_price)) {
      out.spec.pricing = PricingSpec{*price, defaults.currency};
      out.pricing_from_defaults = true;
    }
  }
  if (!out.spec.power) {
    if (auto host = mean_over_ranks(defaults.host_watts_per_gpu)) {
      PowerSpec power = defaults.power;
      // compute_costs charges node_watts per node the job spans.
      power.node_watts = *host * static_cast<double>(s.trace.ranks.size()) / static_cast<double>(nodes.size());
      out.spec.power = power;
      out.power_from_defaults = true;
    }
  }
  return out;
}

}  // namespace simctl
