#pragma once
// Default figures per link kind, read from link_kinds.yaml where each figure
// carries its source. A system config may override the bandwidth of one link;
// the efficiency stays a property of the kind.
#include <array>
#include <string>

#include "models/network/link_kind.hpp"
#include "sim/config/data_root.hpp"
#include "sim/core/units.hpp"

namespace simctl {

struct LinkSpec {
  LinkKind kind = LinkKind::ethernet;
  Bandwidth bandwidth;      // raw line rate per direction, as datasheets and configs state it
  TimePs latency = 0;       // per hop
  double efficiency = 1.0;  // fraction of `bandwidth` that bulk copies reach (protocol overhead)
  // A fabric of this link kind spreads flows over equal-cost paths by load
  // (InfiniBand's adaptive routing, on by default) rather than by a hash,
  // where the system file names no routing.
  bool routes_adaptively = false;

  // The rate the flow network shares among flows.
  Bandwidth effective() const { return bandwidth * efficiency; }
};

class LinkKindTable {
 public:
  // Throws ConfigError (file:line:col) on missing kinds, unknown keys or bad values.
  static LinkKindTable load(const std::string& path = data_root() + "/models/network/link_kinds.yaml");

  const LinkSpec& defaults(LinkKind kind) const { return specs_[static_cast<std::size_t>(kind)]; }

 private:
  std::array<LinkSpec, kAllLinkKinds.size()> specs_{};
};

}  // namespace simctl
