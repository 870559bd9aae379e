#pragma once
// Optional prices and power figures of a run config, and what they turn a
// step into: money per step and per million tokens, energy per step.
//
//   pricing:
//     gpu_hour_price: 2.49            # one GPU for one hour, in `currency`
//     currency: USD                   # a label; default USD
//     owned:                          # a buyer's cost besides the renter's
//       gpu_price: 42500              # each GPU installed: its share of server or rack
//       network_port_price: 3000      # each NIC port with its share of switches, optics
//       amortisation_years: 4
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
//
// Owned cost (stated): the purchase of the GPUs the run uses, each with its
// node's NIC ports per GPU, spread evenly over amortisation_years of
// continuous use, plus the step's electricity (power section: its PUE and
// price per kWh; none without one).
#include <optional>
#include <string>
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/core/units.hpp"

namespace simctl {

struct OwnedSpec {
  double gpu_price = 0.0;
  double network_port_price = 0.0;
  double amortisation_years = 4.0;
};

struct PricingSpec {
  double gpu_hour_price = 0.0;
  std::string currency = "USD";
  std::optional<OwnedSpec> owned;
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
  bool owned = false;
  double owned_cost_per_step = 0.0;  // hardware amortised + electricity
  double owned_cost_per_million_tokens = 0.0;
  double owned_hardware_per_step = 0.0;
  std::string owned_assumptions;  // "42500 USD per GPU, 1 NIC port per GPU at 3000 USD, 4 years; ..."
};

// `nic_ports_per_gpu`: the NIC ports of the nodes the run spans over their GPUs.
CostReport compute_costs(const CostSpec& spec, TimePs step, double tokens_per_step, int nodes,
                         const std::vector<GpuActivity>& gpus, double nic_ports_per_gpu = 0.0);

}  // namespace simctl
