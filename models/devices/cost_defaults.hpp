#pragma once
// The prices and power figures a study falls back on when its run config has
// no `pricing:` or `power:` (models/devices/cost_defaults.yaml, each figure
// with its source). Developer data like the catalogue, so it keeps its own
// key checks.
#include <map>
#include <string>

namespace simctl {

struct CostDefaults {
  std::string currency;
  std::map<std::string, double> gpu_hour_price;  // by GPU model id
  // A buyer's: each GPU installed (its share of server or rack), by GPU model
  // id; a NIC port with its share of switches and optics; the years a
  // purchase is spread over.
  std::map<std::string, double> gpu_purchase_price;
  double network_port_price = 0.0;
  double amortisation_years = 4.0;
  double gpu_idle_fraction = 0.0;
  double pue = 1.0;
  double electricity_price_per_kwh = 0.0;
  std::map<std::string, double> host_watts_per_gpu;  // by GPU model id

  static CostDefaults load_file(const std::string& path);
  static CostDefaults load();  // <data root>/models/devices/cost_defaults.yaml
};

}  // namespace simctl
