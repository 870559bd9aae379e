// The unit parser: a YAML scalar read as every kind of quantity and number
// a config field may hold ("400 Gb/s", "80 GiB", "2 us", "989 TFLOP/s",
// ".nan", "1e300"), each accepted or refused with a ConfigError.
#include "fuzz/fuzz_common.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/quantity.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace simctl;
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)parse_bandwidth_bytes_per_s(text);
  (void)parse_size_bytes(text);
  (void)parse_time_seconds(text);
  (void)parse_flop_rate(text);
  const auto each = [&](auto read) {
    fuzz::expect_only_config_errors([&] { read(ConfigNode::load_string(text, "units")); });
  };
  each([](const ConfigNode& n) { (void)n.as_bandwidth(); });
  each([](const ConfigNode& n) { (void)n.as_size(); });
  each([](const ConfigNode& n) { (void)n.as_time(); });
  each([](const ConfigNode& n) { (void)n.as_flop_rate(); });
  each([](const ConfigNode& n) { (void)n.as_number(); });
  each([](const ConfigNode& n) { (void)n.as_integer(); });
  each([](const ConfigNode& n) {
    if (auto v = n.as_size(); v > 0) (void)format_bytes(static_cast<double>(v));
  });
  each([](const ConfigNode& n) { (void)format_time(n.as_time()); });
  return 0;
}
