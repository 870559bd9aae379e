#pragma once
// The CONFIG argument of commands that need only a system (route, transfer):
// a system file or a run config; either has `system:`, inline or as the
// path of a system file relative to CONFIG.
#include <string>

#include "models/devices/device_catalogue.hpp"
#include "models/network/link_kinds.hpp"
#include "sim/topology/system.hpp"

namespace simctl {

System load_system_argument(const std::string& path, const DeviceCatalogue& catalogue, const LinkKindTable& link_kinds);

}  // namespace simctl
