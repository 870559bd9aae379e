// The clock a GPU settles at under its power limit (models/devices/power_model.hpp).
#include "models/devices/power_model.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>

#include "models/devices/device_catalogue.hpp"

using namespace simctl;

namespace {
const PowerModel kHopper{0.1025, 0.682, 1.145};
}

TEST_CASE("at its TDP a part settles where it was measured", "[devices][power]") {
  CHECK(settled_clock_fraction(kHopper, 700.0, 700.0) == Approx(0.682));
  CHECK(sustained_tensor_slowdown(kHopper, 700.0, 700.0) == Approx(1.145));
  // Ratios to the TDP: a 1000 W part of the same architecture settles alike.
  CHECK(sustained_tensor_slowdown(kHopper, 1000.0, 1000.0) == Approx(1.145));
}

// Meta's H100s at 500 W (torchtitan's published runs): the cube law puts the
// clock at 0.600 of burst, GEMMs 1.198x their burst time (4.6 % slower than
// at 700 W).
TEST_CASE("a lower power limit settles lower, a higher one not above burst", "[devices][power]") {
  CHECK(settled_clock_fraction(kHopper, 700.0, 500.0) == Approx(0.600).epsilon(0.002));
  CHECK(sustained_tensor_slowdown(kHopper, 700.0, 500.0) == Approx(1.198).epsilon(0.002));
  CHECK(sustained_tensor_slowdown(kHopper, 700.0, 600.0) < sustained_tensor_slowdown(kHopper, 700.0, 500.0));
  CHECK(sustained_tensor_slowdown(kHopper, 700.0, 5000.0) == Approx(1.0));
  CHECK_THROWS_AS(settled_clock_fraction(kHopper, 700.0, 60.0), std::invalid_argument);
}

TEST_CASE("Hopper and Blackwell parts are priced by one power model", "[devices][power][catalogue]") {
  const DeviceCatalogue catalogue = DeviceCatalogue::load();
  for (const char* id : {"h100-sxm", "h200", "b200", "gb200", "b300", "gb300"}) {
    INFO(id);
    const GpuSpec& gpu = catalogue.gpu(id);
    REQUIRE(gpu.compute.power_model);
    CHECK(gpu.compute.sustained_tensor_slowdown == Approx(1.145));
  }
  CHECK_FALSE(catalogue.gpu("mi300x").compute.power_model);
  CHECK(catalogue.gpu("mi300x").compute.sustained_tensor_slowdown == 1.0);
}
