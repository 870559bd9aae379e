#include "sim/config/config_node.hpp"

#include <catch2/catch.hpp>

#include "tests/config/config_error_of.hpp"

using namespace simctl;

namespace {
std::string error_of(const std::function<void()>& f) { return test::config_error_message(f); }
}  // namespace

TEST_CASE("quantities are read with their units", "[config]") {
  auto root = ConfigNode::load_string("link: {bandwidth: 400 Gb/s, latency: 2 us, size: 80 GiB}\n", "t.yaml");
  auto link = root.child("link");
  CHECK(link.bandwidth("bandwidth").bytes_per_s == Approx(50e9));
  CHECK(link.time("latency") == 2 * kPsPerUs);
  CHECK(link.size("size") == 80 * kGiB);
}

TEST_CASE("errors name file, line, column, field and what is valid", "[config]") {
  auto root = ConfigNode::load_string("a: 1\nlink:\n  bandwidth: 400 Gbps\n", "sys.yaml");
  std::string msg = error_of([&] { root.child("link").bandwidth("bandwidth"); });
  CHECK(msg.find("sys.yaml:3:14") != std::string::npos);
  CHECK(msg.find("link.bandwidth") != std::string::npos);
  CHECK(msg.find("Gb/s") != std::string::npos);
}

TEST_CASE("negative bandwidth is refused", "[config]") {
  auto root = ConfigNode::load_string("bw: -5 GB/s\n", "x.yaml");
  CHECK_THAT(error_of([&] { root.bandwidth("bw"); }), Catch::Contains("must be positive"));
}

TEST_CASE("unknown fields are refused with the valid list", "[config]") {
  auto root = ConfigNode::load_string("name: x\nbandwidht: 1 GB/s\n", "x.yaml");
  std::string msg = error_of([&] { root.expect_keys({"name", "bandwidth"}); });
  CHECK_THAT(msg, Catch::Contains("x.yaml:2:1"));
  CHECK_THAT(msg, Catch::Contains("bandwidht"));
  CHECK_THAT(msg, Catch::Contains("name or bandwidth"));
}

TEST_CASE("YAML syntax errors carry their position", "[config]") {
  std::string msg = error_of([] { ConfigNode::load_string("a: [1, 2\nb: 3\n", "bad.yaml"); });
  CHECK_THAT(msg, Catch::Contains("bad.yaml:"));
  CHECK_THAT(msg, Catch::Contains("YAML syntax error"));
}

TEST_CASE("missing files and missing fields are reported", "[config]") {
  CHECK_THAT(error_of([] { ConfigNode::load_file("/nonexistent/none.yaml"); }), Catch::Contains("cannot open"));
  auto root = ConfigNode::load_string("a: 1\n", "m.yaml");
  CHECK_THAT(error_of([&] { root.child("b"); }), Catch::Contains("missing required field 'b'"));
}

TEST_CASE("choices list the valid options", "[config]") {
  auto root = ConfigNode::load_string("dtype: fp64\n", "c.yaml");
  CHECK_THAT(error_of([&] { root.choice("dtype", {"fp32", "bf16"}); }), Catch::Contains("choose fp32 or bf16"));
}
