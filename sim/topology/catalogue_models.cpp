#include "sim/topology/catalogue_models.hpp"

namespace simctl {

std::vector<std::string> catalogue_ids_for(const DeviceCatalogue& catalogue, PartKind kind) {
  switch (kind) {
    case PartKind::cpu_socket: return catalogue.cpu_ids();
    case PartKind::dram: return catalogue.memory_ids();
    case PartKind::gpu: return catalogue.gpu_ids();
    case PartKind::nic: return catalogue.nic_ids();
    case PartKind::storage: return catalogue.storage_ids();
    default: return {};
  }
}

}  // namespace simctl
