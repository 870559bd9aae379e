// A system file (with imports of the shipped system files), as a run config
// names it, under a fixed small workload: the system is built, checked,
// routed, and the workload placed and replayed on it.
#include "fuzz/fuzz_common.hpp"

namespace {
constexpr std::string_view kRun =
    "system: fuzzed_system.yaml\n"
    "workload: {model: {layers: 2, hidden: 256, heads: 4, vocab: 512, seq_len: 128}, parallel: {data: 2},\n"
    "           micro_batch: 1}\n";
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return simctl::fuzz::load_fixed_run(data, size, "fuzzed_system.yaml", kRun);
}
