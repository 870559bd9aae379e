// A renter's and a buyer's cost of a step (sim/report/costs.hpp), and bad
// pricing input refused at its field.
#include "sim/report/costs.hpp"

#include <catch2/catch.hpp>

#include "sim/config/config_error.hpp"

using namespace simctl;

namespace {

CostSpec costs_of(const std::string& yaml) { return parse_costs(ConfigNode::load_string(yaml, "c.yaml")); }

std::string error_of(const std::string& yaml) {
  try {
    costs_of(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const std::string kOwned =
    "pricing: {gpu_hour_price: 3, owned: {gpu_price: 40000, network_port_price: 3000, amortisation_years: 4}}\n";

}  // namespace

// 8 GPUs for one hour, each with one NIC port: (40000 + 3000) x 8 over four
// years of hours, plus electricity at 1 kW for the hour at 0.1 per kWh.
TEST_CASE("owned cost amortises the GPUs and their ports and adds the electricity", "[report][costs]") {
  const CostSpec spec = costs_of(kOwned + "power: {gpu_idle_fraction: 1, pue: 1, electricity_price_per_kwh: 0.1}\n");
  const std::vector<GpuActivity> gpus(8, GpuActivity{125.0, 0});
  const TimePs hour = seconds_to_ps(3600.0);
  const CostReport r = compute_costs(spec, hour, 1e6, 1, gpus, 1.0);
  REQUIRE(r.owned);
  const double hours = 4 * 365.25 * 24;
  CHECK(r.owned_hardware_per_step == Approx(43000.0 * 8 / hours));
  CHECK(r.owned_cost_per_step == Approx(43000.0 * 8 / hours + 0.1));
  CHECK(r.owned_cost_per_million_tokens == Approx(r.owned_cost_per_step));
  CHECK(r.cost_per_step == Approx(24.0));  // the renter's: 8 x 3 per hour
  CHECK_THAT(r.owned_assumptions, Catch::Contains("40000 USD per GPU") && Catch::Contains("1 NIC ports per GPU") &&
                                      Catch::Contains("4 years") && Catch::Contains("PUE 1"));
  const CostReport no_power = compute_costs(costs_of(kOwned), hour, 1e6, 1, gpus, 1.0);
  CHECK(no_power.owned_cost_per_step == Approx(no_power.owned_hardware_per_step));
  CHECK_THAT(no_power.owned_assumptions, Catch::Contains("electricity not counted"));
}

TEST_CASE("bad owned pricing is refused at its field with what is valid", "[report][costs][errors]") {
  CHECK_THAT(error_of("pricing: {gpu_hour_price: 3, owned: {gpu_price: 0}}\n"),
             Catch::Contains("pricing.owned.gpu_price") && Catch::Contains("> 0"));
  CHECK_THAT(error_of("pricing: {gpu_hour_price: 3, owned: {gpu_price: 1, amortisation_years: 40}}\n"),
             Catch::Contains("pricing.owned.amortisation_years") && Catch::Contains("(0, 30]"));
  CHECK_THAT(error_of("pricing: {gpu_hour_price: 3, owned: {gpu_price: 1, years: 4}}\n"),
             Catch::Contains("pricing.owned.years") && Catch::Contains("amortisation_years"));
  CHECK_THAT(error_of("pricing: {gpu_hour_price: 3, owned: {network_port_price: 5}}\n"), Catch::Contains("gpu_price"));
}
