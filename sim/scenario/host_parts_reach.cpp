#include "sim/scenario/host_parts_reach.hpp"

#include <string>
#include <vector>

#include "sim/topology/reachability.hpp"

namespace simctl {
namespace {

// What a program's ops need on the host side.
struct HostNeeds {
  bool dram = false;
  bool storage = false;
};

HostNeeds needs_of(const std::vector<Op>& ops) {
  HostNeeds needs;
  for (const Op& op : ops) {
    if (const auto* copy = std::get_if<CopyCall>(&op.work)) {
      needs.dram = true;
      needs.storage = needs.storage || copy->direction == CopyDirection::storage_to_host;
    } else if (const auto* host = std::get_if<HostWork>(&op.work); host && host->memory_bytes > 0.0) {
      needs.dram = true;
    }
  }
  return needs;
}

void require(const Reachability& reach, const System& system, EndpointId gpu, std::uint32_t rank, PartKind kind,
             const std::string& why, const ConfigNode& system_node) {
  if (reach.reaches_kind(gpu, kind)) return;
  // A link kind the loader takes: an NVMe drive's PCIe 4.0 x4 is a
  // pcie_gen4_x16 link at the x4 lanes' rate, as the DGX files cable it.
  const std::string cable = kind == PartKind::dram ? "{between: [cpu, dram], kind: memory_bus}"
                                                   : "{between: [cpu, nvme], kind: pcie_gen4_x16, bandwidth: 8 GB/s}";
  system_node.fail("rank " + std::to_string(rank) + "'s GPU '" + system.part(gpu).name + "' reaches no " +
                   std::string(to_string(kind)) + " part, but its trace " + why +
                   "; cable one to the CPU socket the GPU reaches (a node template link such as " + cable + ")");
}

}  // namespace

void check_host_parts_reachable(const System& system, const Trace& trace, const ConfigNode& system_node) {
  std::vector<HostNeeds> needs;
  needs.reserve(trace.programs.size());
  for (const auto& program : trace.programs) needs.push_back(needs_of(program));
  const Reachability reach(system.graph());
  for (std::uint32_t r = 0; r < trace.rank_count(); ++r) {
    const HostNeeds& need = needs[trace.ranks[r].program];
    if (!need.dram) continue;
    const EndpointId gpu = system.gpus().at(trace.gpu_index(r));
    require(reach, system, gpu, r, PartKind::dram, "copies between host memory and the GPU", system_node);
    if (need.storage) require(reach, system, gpu, r, PartKind::storage, "reads samples from storage", system_node);
  }
}

}  // namespace simctl
