// Numeric edge cases and oversized files are refused as they are read, with
// the file, line, field, the value and the range simctl accepts.
#include "sim/config/input_limits.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>

#include "sim/config/config_node.hpp"
#include "tests/config/config_error_of.hpp"

using namespace simctl;

namespace {

std::string limits_error_of(const std::function<void()>& f) { return test::config_error_message(f); }

// The error reading `key` of a one-line file "key: value" with `read`.
std::string read_error(const std::string& value, const std::function<void(const ConfigNode&)>& read) {
  const ConfigNode root = ConfigNode::load_string("pad: 0\nfield: " + value + "\n", "edge.yaml");
  return limits_error_of([&] { read(root.child("field")); });
}

}  // namespace

TEST_CASE("zero and denormal bandwidths are refused with the range", "[config][limits]") {
  const auto bandwidth = [](const ConfigNode& n) { (void)n.as_bandwidth(); };
  CHECK_THAT(read_error("0 GB/s", bandwidth), Catch::StartsWith("edge.yaml:2:8") && Catch::Contains("field 'field'") &&
                                                  Catch::Contains("must be positive"));
  for (const char* tiny : {"1e-310 B/s", "4.9e-324 B/s", "1e-300 GB/s", "100 b/s"}) {
    INFO(tiny);
    CHECK_THAT(read_error(tiny, bandwidth), Catch::StartsWith("edge.yaml:2:8") && Catch::Contains("1 KB/s to 1 EB/s"));
  }
  CHECK_THAT(read_error("1e300 TB/s", bandwidth), Catch::Contains("1 KB/s to 1 EB/s"));
  CHECK(read_error("1 KB/s", bandwidth).empty());
  CHECK(read_error("900 TB/s", bandwidth).empty());
}

TEST_CASE("absurd compute rates are refused with the range", "[config][limits]") {
  const auto rate = [](const ConfigNode& n) { (void)n.as_flop_rate(); };
  CHECK_THAT(read_error("1e300 FLOP/s", rate),
             Catch::StartsWith("edge.yaml:2:8") && Catch::Contains("1e6 to 1e21 FLOP/s"));
  CHECK_THAT(read_error("1e-300 TFLOP/s", rate), Catch::Contains("1e6 to 1e21 FLOP/s"));
  CHECK(read_error("989 TFLOP/s", rate).empty());
}

TEST_CASE("sizes at or above 2^63 bytes and times past int64 picoseconds are refused", "[config][limits]") {
  const auto size = [](const ConfigNode& n) { (void)n.as_size(); };
  CHECK_THAT(read_error("9223372036854775808 B", size), Catch::Contains("at most 8 EiB"));
  CHECK_THAT(read_error("1e300 PiB", size), Catch::StartsWith("edge.yaml:2:8") && Catch::Contains("at most 8 EiB"));
  CHECK(read_error("8 PiB", size).empty());
  const auto time = [](const ConfigNode& n) { (void)n.as_time(); };
  CHECK_THAT(read_error("1e7 s", time), Catch::Contains("at most 9.2e6 s"));
  CHECK(read_error("1000 s", time).empty());
}

TEST_CASE("NaN and infinity in YAML numbers and quantities are refused", "[config][limits]") {
  for (const char* text : {".nan", ".NaN", ".inf", "-.inf", "nan", "inf", "1e999"}) {
    INFO(text);
    CHECK_THAT(read_error(text, [](const ConfigNode& n) { (void)n.as_number(); }),
               Catch::StartsWith("edge.yaml:2:8") && Catch::Contains("expected a number"));
    CHECK_THAT(read_error(std::string(text) + " GB/s", [](const ConfigNode& n) { (void)n.as_bandwidth(); }),
               Catch::Contains("is not a bandwidth"));
    CHECK_THAT(read_error(std::string(text) + " GiB", [](const ConfigNode& n) { (void)n.as_size(); }),
               Catch::Contains("is not a size"));
  }
}

TEST_CASE("a YAML file over the size limit is refused before it is parsed", "[config][limits]") {
  const auto path =
      std::filesystem::temp_directory_path() / ("simctl_limits_big_" + std::to_string(::getpid()) + ".yaml");
  {
    // A sparse file: its size is checked, so its bytes need not be written.
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << "a: 1\n";
  }
  std::filesystem::resize_file(path, 1ull << 30);  // 1 GiB
  const std::string msg = limits_error_of([&] { (void)ConfigNode::load_file(path.string()); });
  std::filesystem::remove(path);
  CHECK_THAT(msg, Catch::StartsWith(path.string()) && Catch::Contains("the YAML file is 1.00 GiB") &&
                      Catch::Contains("more than the 64.00 MiB simctl reads"));
}
