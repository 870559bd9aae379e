#include "sim/config/quantity.hpp"

#include <catch2/catch.hpp>

using namespace simctl;

TEST_CASE("bandwidths parse in bits and bytes", "[units]") {
  CHECK(*parse_bandwidth_bytes_per_s("400 Gb/s") == Approx(50e9));
  CHECK(*parse_bandwidth_bytes_per_s("3.35 TB/s") == Approx(3.35e12));
  CHECK(*parse_bandwidth_bytes_per_s("450GB/s") == Approx(450e9));
  CHECK(*parse_bandwidth_bytes_per_s("1 GiB/s") == Approx(1073741824.0));
  CHECK_FALSE(parse_bandwidth_bytes_per_s("400 Gbps"));
  CHECK_FALSE(parse_bandwidth_bytes_per_s("fast"));
  CHECK_FALSE(parse_bandwidth_bytes_per_s("400"));
}

TEST_CASE("sizes use decimal and binary prefixes", "[units]") {
  CHECK(*parse_size_bytes("80 GiB") == Approx(80.0 * 1024 * 1024 * 1024));
  CHECK(*parse_size_bytes("80 GB") == Approx(80e9));
  CHECK(*parse_size_bytes("512 B") == Approx(512));
  CHECK_FALSE(parse_size_bytes("80 GiB/s"));
}

TEST_CASE("times and compute rates parse", "[units]") {
  CHECK(*parse_time_seconds("2 us") == Approx(2e-6));
  CHECK(*parse_time_seconds("1.5 ms") == Approx(1.5e-3));
  CHECK(*parse_time_seconds("700 ns") == Approx(700e-9));
  CHECK(*parse_flop_rate("989 TFLOP/s") == Approx(989e12));
  CHECK_FALSE(parse_flop_rate("989 TFLOPS"));
}

TEST_CASE("formatting states units", "[units]") {
  CHECK(format_bytes(1024.0 * 1024 * 1024) == "1.00 GiB");
  CHECK(format_bandwidth(Bandwidth{450e9}) == "450.0 GB/s");
  CHECK(format_time(12'345'000'000) == "12.345 ms");
}
