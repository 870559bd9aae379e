// The reference runs on thousands of GPUs, replayed rank by rank. Each takes
// tens of seconds, so they live in an executable of their own, labelled
// `slow`: the default suite runs them, the sanitizer run (scripts/sanitize,
// a Debug build) leaves them out.
#include <catch2/catch.hpp>

#include "reference_points.hpp"

using namespace simctl::testing;

TEST_CASE("Megatron-LM runs on thousands of GPUs are reproduced within tolerance", "[plans][accuracy][slow]") {
  int large = 0;
  for (const auto& point : load_reference_points()) {
    if (!point.large) continue;
    check_reference_point(point);
    ++large;
  }
  CHECK(large >= 1);
}
