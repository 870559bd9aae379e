// A PyTorch profiler (Kineto) trace through `simctl import kineto`: parsed,
// imported as rank 0 of its world, written as a simctl trace and replayed on
// a DGX H100 when small. Bad input may end in a JSON parse error or a
// KinetoError (what the CLI reports) or a ConfigError; anything else is a bug.
#include <nlohmann/json.hpp>

#include "fuzz/fuzz_common.hpp"
#include "workloads/kineto_import.hpp"
#include "workloads/trace_json.hpp"

namespace {
constexpr std::string_view kRun =
    "system: systems/dgx_h100.yaml\n"
    "workload: {trace: fuzzed_kineto_trace.json}\n";
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace simctl;
  KinetoImport imported;
  try {
    KinetoFile file{"fuzzed.json", nlohmann::json::parse(data, data + size)};
    KinetoImportOptions options;
    options.measured_on = "h100-sxm";
    options.ranks = 8;  // the DGX's GPUs
    imported = import_kineto({std::move(file)}, options);
  } catch (const nlohmann::json::exception&) {  // not JSON, or a number JSON cannot hold (1e999)
    return 0;
  } catch (const KinetoError&) {
    return 0;
  } catch (const ConfigError&) {
    return 0;
  }
  const std::string trace = trace_to_json(imported.trace, imported.description);
  fuzz::write_scratch("fuzzed_kineto_trace.json", reinterpret_cast<const std::uint8_t*>(trace.data()), trace.size());
  const std::string run =
      fuzz::write_scratch("run_fuzzed_kineto.yaml", reinterpret_cast<const std::uint8_t*>(kRun.data()), kRun.size());
  return fuzz::expect_only_config_errors([&] { fuzz::load_and_replay(run); });
}
