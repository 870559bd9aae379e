#include "sim/exec/host_endpoints.hpp"

#include <stdexcept>

#include "sim/topology/system.hpp"

namespace simctl {
namespace {

EndpointId nearest_or_throw(const System& system, EndpointId from, PartKind kind) {
  const auto found = system.nearest(from, kind);
  if (!found) {
    throw std::runtime_error("no " + std::string(to_string(kind)) + " is reachable from " + system.part(from).name +
                             "; the system needs one for host-side copies");
  }
  return *found;
}

}  // namespace

// The copy's host end is the DRAM fewest hops from the GPU (its own socket's
// memory), and storage reads land in that same DRAM.
std::pair<EndpointId, EndpointId> copy_endpoints(const System& system, EndpointId gpu, CopyDirection direction) {
  const EndpointId host_memory = nearest_or_throw(system, gpu, PartKind::dram);
  switch (direction) {
    case CopyDirection::host_to_device: return {host_memory, gpu};
    case CopyDirection::device_to_host: return {gpu, host_memory};
    case CopyDirection::storage_to_host: return {nearest_or_throw(system, gpu, PartKind::storage), host_memory};
  }
  return {host_memory, gpu};
}

std::pair<EndpointId, EndpointId> host_memory_pass_endpoints(const System& system, EndpointId gpu) {
  const EndpointId host_memory = nearest_or_throw(system, gpu, PartKind::dram);
  return {host_memory, nearest_or_throw(system, host_memory, PartKind::cpu_socket)};
}

}  // namespace simctl
