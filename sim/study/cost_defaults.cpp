#include "sim/study/cost_defaults.hpp"

#include <set>

#include "sim/scenario/scenario.hpp"

namespace simctl {

StudyCosts study_costs(const Scenario& s, const CostDefaults& defaults) {
  StudyCosts out{s.costs};
  std::set<int> nodes;
  for (std::uint32_t r = 0; r < s.trace.ranks.size(); ++r)
    nodes.insert(s.system.part(s.system.gpus()[s.trace.gpu_index(r)]).node);
  // A variant is priced and powered as the catalogue part it changes.
  const auto catalogue_part = [&](std::uint32_t rank) -> const std::string& {
    const GpuSpec& gpu = s.catalogue.gpu(s.system.part(s.system.gpus()[s.trace.gpu_index(rank)]).model);
    return gpu.variant_of.empty() ? gpu.id : gpu.variant_of;
  };
  const auto mean_over_ranks = [&](const std::map<std::string, double>& table) -> std::optional<double> {
    double sum = 0.0;
    for (std::uint32_t r = 0; r < s.trace.ranks.size(); ++r) {
      auto it = table.find(catalogue_part(r));
      if (it == table.end()) return std::nullopt;
      sum += it->second;
    }
    return s.trace.ranks.empty() ? std::nullopt : std::optional<double>(sum / s.trace.ranks.size());
  };
  if (!out.spec.pricing) {
    if (auto price = mean_over_ranks(defaults.gpu_hour_price)) {
      out.spec.pricing = PricingSpec{*price, defaults.currency, std::nullopt};
      if (auto purchase = mean_over_ranks(defaults.gpu_purchase_price))
        out.spec.pricing->owned = OwnedSpec{*purchase, defaults.network_port_price, defaults.amortisation_years};
      out.pricing_from_defaults = true;
    }
  }
  if (!out.spec.power) {
    if (auto host = mean_over_ranks(defaults.host_watts_per_gpu)) {
      PowerSpec power;
      power.gpu_idle_fraction = defaults.gpu_idle_fraction;
      power.pue = defaults.pue;
      power.electricity_price_per_kwh = defaults.electricity_price_per_kwh;
      // compute_costs charges node_watts per node the job spans.
      power.node_watts = *host * static_cast<double>(s.trace.ranks.size()) / static_cast<double>(nodes.size());
      out.spec.power = power;
      out.power_from_defaults = true;
    }
  }
  return out;
}

}  // namespace simctl
