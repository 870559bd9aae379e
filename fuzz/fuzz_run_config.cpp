// A run config, with everything it names: its system and workload files and
// their imports (resolved against the shipped configs/), loaded as `simctl
// run` loads it, then replayed when its trace is small.
#include "fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = simctl::fuzz::write_scratch("run.yaml", data, size);
  return simctl::fuzz::expect_only_config_errors([&] { simctl::fuzz::load_and_replay(path); });
}
