#include "sim/topology/system_checks.hpp"

namespace simctl {
namespace {

void check_reaches_other_gpu(const System& system, EndpointId gpu, const ConfigNode& where) {
  if (system.gpus().size() < 2 || system.nearest(gpu, PartKind::gpu)) return;
  where.fail("GPU '" + system.part(gpu).name +
             "' has no path to any other GPU; GPUs do not forward traffic, so connect it to a switch "
             "(nvswitch, pcie_switch) or CPU socket that leads to the others");
}

void check_reaches_cpu(const System& system, EndpointId gpu, const ConfigNode& where) {
  if (system.nearest(gpu, PartKind::cpu_socket)) return;
  where.fail("GPU '" + system.part(gpu).name +
             "' has no path to any CPU socket; connect it to a cpu_socket directly or through a pcie_switch");
}

// Every GPU reaches some GPU, yet two nodes may still lack a fabric between them.
void check_one_piece(const System& system, EndpointId gpu, const ConfigNode& where) {
  const EndpointId first = system.gpus().front();
  if (system.reachable(first, gpu)) return;
  where.fail("GPU '" + system.part(gpu).name + "' has no path to GPU '" + system.part(first).name +
             "'; the system falls apart into separate pieces: connect its nodes with system-level links "
             "(e.g. NICs to a network_switch)");
}

}  // namespace

void check_gpus_connected(const System& system, const GpuDeclarations& declared, const ConfigNode& system_node) {
  if (system.gpus().empty()) {
    system_node.fail("the system has no GPU; declare a part group of kind gpu in a node template or under parts");
  }
  for (EndpointId gpu : system.gpus()) {
    check_reaches_other_gpu(system, gpu, declared.at(gpu));
    check_reaches_cpu(system, gpu, declared.at(gpu));
  }
  for (EndpointId gpu : system.gpus()) check_one_piece(system, gpu, declared.at(gpu));
}

}  // namespace simctl
