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
  return simctl::fuzz::load_fixed_run(data, size, "fuzzed_trace.json", kRun);
}
