#include "sim/topology/system_checks.hpp"

#include "sim/topology/reachability.hpp"

namespace simctl {
namespace {

// Switches in a loop of their own are legal (fat-trees are full of loops)
// but, when the system falls apart, often the reason: name them.
std::string loop_hint(const Reachability& reach) {
  std::string out;
  for (const auto& loop : reach.gpu_less_loops()) {
    std::string names;
    for (std::size_t i = 0; i < loop.size() && i < 6; ++i) names += (i ? ", '" : "'") + loop[i] + "'";
    if (loop.size() > 6) names += " and " + std::to_string(loop.size() - 6) + " more";
    out += "; note: " + names + " are cabled in a loop among themselves that no GPU reaches";
  }
  return out;
}

void check_reaches_other_gpu(const System& system, const Reachability& reach, EndpointId gpu, const ConfigNode& where) {
  if (system.gpus().size() < 2 || reach.reaches_kind(gpu, PartKind::gpu)) return;
  where.fail("GPU '" + system.part(gpu).name +
             "' has no path to any other GPU; GPUs do not forward traffic, so connect it to a switch "
             "(nvswitch, pcie_switch) or CPU socket that leads to the others" +
             loop_hint(reach));
}

void check_reaches_cpu(const System& system, const Reachability& reach, EndpointId gpu, const ConfigNode& where) {
  if (reach.reaches_kind(gpu, PartKind::cpu_socket)) return;
  where.fail("GPU '" + system.part(gpu).name +
             "' has no path to any CPU socket; connect it to a cpu_socket directly or through a pcie_switch");
}

// Every GPU reaches some GPU, yet two nodes may still lack a fabric between them.
void check_one_piece(const System& system, const Reachability& reach, EndpointId gpu, const ConfigNode& where) {
  const EndpointId first = system.gpus().front();
  if (reach.reaches(first, gpu)) return;
  where.fail("GPU '" + system.part(gpu).name + "' has no path to GPU '" + system.part(first).name +
             "'; the system falls apart into separate pieces: connect its nodes with system-level links "
             "(e.g. NICs to a network_switch) or a fabric" +
             loop_hint(reach));
}

}  // namespace

void check_gpus_connected(const System& system, const GpuDeclarations& declared, const ConfigNode& system_node) {
  if (system.gpus().empty()) {
    system_node.fail("the system has no GPU; declare a part group of kind gpu in a node template or under parts");
  }
  const Reachability reach(system.graph());
  for (EndpointId gpu : system.gpus()) {
    check_reaches_other_gpu(system, reach, gpu, declared.at(gpu));
    check_reaches_cpu(system, reach, gpu, declared.at(gpu));
  }
  for (EndpointId gpu : system.gpus()) check_one_piece(system, reach, gpu, declared.at(gpu));
}

}  // namespace simctl
