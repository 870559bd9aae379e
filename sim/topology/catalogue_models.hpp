#pragma once
// Which catalogue section names the model of each part kind.
#include <string>
#include <string_view>
#include <vector>

#include "models/devices/device_catalogue.hpp"
#include "sim/topology/part.hpp"

namespace simctl {

// Valid model ids for parts of `kind`; empty for kinds without a model (switches).
std::vector<std::string> catalogue_ids_for(const DeviceCatalogue& catalogue, PartKind kind);

}  // namespace simctl
