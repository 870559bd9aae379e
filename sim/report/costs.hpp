#pragma once
// Optional prices and power figures of a run config, and what they turn a
// step into: money per step and per million tokens, energy per step.
//
//   pricing:
//     gpu_hour_price: 2.49            # one GPU for one hour, in `currency`
//     currency: USD                   # a label; default USD
//   power:
//     gpu_idle_fraction: 0.2          # of TDP, drawn by a GPU that is not computing
//     node_watts: 1500                # everything in a node but its GPUs; default 0
//     pue: 1.2                        # facility overhead (>= 1); default 1
//     electricity_price_per_kwh: 0.1  # in pricing's currency; default 0
//
// Energy model (stated, not measured): each GPU draws
//   P_idle = gpu_idle_fraction x TDP  all step long, plus
//   (TDP - P_idle)                    while its compute stream runs a kernel,
// so E_gpu = step x P_idle + compute_time x (TDP - P_idle). Nodes add
// node_watts x step; the facility multiplies the sum by pue.
#include <optional>
#include <string>
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/core/units.hpp"

namespace simctl {

struct PricingSpec {
  double gpu_hour_price = 0.0;
  std::string currency = "USD";
};

struct PowerSpec {
  double gpu_idle_fraction = 0.2;
  double node_watts = 0.0;
  double pue = 1.0;
  double electricity_price_per_kwh = 0.0;
};

struct CostSpec {
  std::optional<PricingSpec> pricing;
  std::optional<PowerSpec> power;
};

// Reads the optional `pricing` and `power` sections of a run config's root.
// Throws ConfigError (file:line:col) on unknown keys or out-of-range values.
CostSpec parse_costs(const ConfigNode& root);

struct GpuActivity {
  double tdp_watts = 0.0;
  TimePs compute = 0;  // time its compute stream ran kernels
};

struct CostReport {
  bool priced = false;
  std::string currency;
  double cost_per_step = 0.0;
  double cost_per_million_tokens = 0.0;
  bool powered = false;
  double gpu_energy_joules = 0.0;    // the GPUs alone
  double total_energy_joules = 0.0;  // GPUs + nodes, times PUE
  double average_power_watts = 0.0;  // total energy / step time
  double energy_cost_per_step = 0.0;
};

CostReport compute_costs(const CostSpec& spec, TimePs step, double tokens_per_step, int nodes,
                         const std::vector<GpuActivity>& gpus);

}  // namespace simctl
