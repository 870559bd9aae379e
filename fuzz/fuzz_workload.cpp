// A workload file, as a run config names it, on a fixed system of 4 DGX H100
// nodes on an NDR fat tree: parsed, its memory estimated, its trace built
// and (when small) replayed.
#include "fuzz/fuzz_common.hpp"

namespace {
constexpr std::string_view kRun =
    "system: systems/dgx_h100_x4_ndr.yaml\n"
    "workload: fuzzed_workload.yaml\n";
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return simctl::fuzz::load_fixed_run(data, size, "fuzzed_workload.yaml", kRun);
}
