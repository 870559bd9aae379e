// A 1 GiB ring all-reduce on 1024 H100 GPUs (128 DGX H100 nodes on an NDR
// rail-optimised fat tree), with max-min bandwidth sharing and ECMP on: how
// long simctl takes, how much memory, and where the time goes.
//
//   bench_collective [SYSTEM_YAML] [BYTES] [ALGORITHM]
//
// The default system is configs/systems/dgx_h100_x128_ndr.yaml, the default
// algorithm ring; `nvls_tree` times NCCL's multi-node default (its fast path
// from 26 nodes at 1 GiB, docs/network.md), `auto` the tuner's choice.
#include <chrono>
#include <cstdio>
#include <string>

#include "bench/process_stats.hpp"
#include "models/devices/device_catalogue.hpp"
#include "models/network/nccl_test.hpp"
#include "sim/topology/system_config.hpp"

using namespace simctl;

using bench::cpu_seconds;
using bench::peak_rss_mb;
using bench::seconds_since;

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : data_root() + "/configs/systems/dgx_h100_x128_ndr.yaml";
  const double bytes = argc > 2 ? std::stod(argv[2]) : static_cast<double>(kGiB);
  const auto algorithm = collective_algorithm_from_string(argc > 3 ? argv[3] : "ring");
  if (!algorithm) {
    std::fprintf(stderr, "bench_collective: unknown algorithm '%s'\n", argv[3]);
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const DeviceCatalogue catalogue = DeviceCatalogue::load();
  const LinkKindTable kinds = LinkKindTable::load();
  const System system = load_system_file(path, catalogue, kinds);
  const double load_s = seconds_since(t0);

  const auto t1 = std::chrono::steady_clock::now();
  CollectivePoint point;
  point.op = CollectiveOp::all_reduce;
  point.bytes = bytes;
  point.algorithm = *algorithm;
  point.sharp = *algorithm == CollectiveAlgorithm::sharp;  // pinning SHARP says the switches reduce
  const CollectiveResult r = simulate_collective(system, CollectiveTuning::load(), point);
  const double sim_s = seconds_since(t1);

  std::printf("system            %s (%zu GPUs, %zu directed links)\n", system.name().c_str(), system.gpus().size(),
              system.num_links());
  std::printf("collective        all_reduce %.0f B, %s/%s\n", bytes, std::string(to_string(r.choice.algorithm)).c_str(),
              std::string(to_string(r.choice.protocol)).c_str());
  std::printf("simulated time    %.3f ms (busbw %.1f GB/s)\n", ps_to_seconds(r.time) * 1e3, r.busbw_bytes_per_s / 1e9);
  std::printf("wall: load        %.3f s\n", load_s);
  std::printf("wall: simulate    %.3f s (routing, flows, events)\n", sim_s);
  std::printf("wall: total       %.3f s\n", load_s + sim_s);
  std::printf("cpu (user+sys)    %.3f s (wall exceeds it when other processes share the core)\n", cpu_seconds());
  std::printf("peak RSS          %.1f MB\n", peak_rss_mb());
  std::printf("events            %llu (%.0f events/s)\n", static_cast<unsigned long long>(r.events),
              static_cast<double>(r.events) / sim_s);
  std::printf("flows             %llu\n", static_cast<unsigned long long>(r.flows));
  std::printf("rate recomputes   %llu, %.3f s wall\n", static_cast<unsigned long long>(r.rate_recomputations),
              r.recompute_wall_seconds);
  return 0;
}
