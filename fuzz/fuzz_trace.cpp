// A trace file (`simctl trace` output), replayed through `workload: {trace:
// FILE}` on a fixed DGX H100 as a run config does: parsed, checked against
// the system, and replayed when small.
#include "fuzz/fuzz_common.hpp"

namespace {
constexpr std::string_view kRun =
    "system: systems/dgx_h100.yaml\n"
    "workload: {trace: fuzzed_trace.json}\n";
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  simctl::fuzz::write_scratch("fuzzed_trace.json", data, size);
  const std::string run =
      simctl::fuzz::write_scratch("run_trace.yaml", reinterpret_cast<const std::uint8_t*>(kRun.data()), kRun.size());
  return simctl::fuzz::expect_only_config_errors([&] { simctl::fuzz::load_and_replay(run); });
}
