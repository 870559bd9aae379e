#pragma once
// ECMP only where NCCL's traffic meets it: between nodes. Inside a node the
// fabric path is fixed (NVLink through the NVSwitch); a hop-count-equal PCIe
// detour (GPU -> PCIe switch -> GPU) is not an ECMP choice NCCL would make,
// so intra-node transfers take the router's plain route.
#include <optional>

#include "models/network/collective_group.hpp"

namespace simctl {

class RailRouter final : public Router {
 public:
  RailRouter(const Router& inner, const std::optional<CollectiveTopology>& topology)
      : inner_(inner), topology_(topology) {}
  const Path& route(EndpointId from, EndpointId to) const override { return inner_.route(from, to); }
  const Path& route(EndpointId from, EndpointId to, std::uint64_t flow_key) const override {
    if (!topology_ || !crosses_nodes(&*topology_, from, to)) return inner_.route(from, to);
    return inner_.route(from, to, flow_key);
  }
  const Path* route_for_every_key(EndpointId from, EndpointId to) const override {
    if (!topology_ || !crosses_nodes(&*topology_, from, to)) return &inner_.route(from, to);
    return inner_.route_for_every_key(from, to);
  }

 private:
  const Router& inner_;
  const std::optional<CollectiveTopology>& topology_;
};

}  // namespace simctl
