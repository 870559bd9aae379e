#pragma once
// The system as a Boost graph: vertices are parts, edges are full-duplex
// cables. vecS storage keeps vertex and edge iteration in insertion order,
// which is what makes routing tie-breaks deterministic.
#include <boost/graph/adjacency_list.hpp>
#include <cstdint>

#include "models/network/link_kinds.hpp"
#include "models/network/path.hpp"
#include "sim/topology/part.hpp"

namespace simctl {

// One full-duplex cable. `a` and `b` fix its orientation for link ids:
// directed link 2*index carries a -> b, 2*index+1 carries b -> a.
struct Cable {
  std::uint32_t index = 0;
  EndpointId a = 0;
  EndpointId b = 0;
  LinkSpec spec;  // per direction
};

using SystemGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, Part, Cable>;
using CableEdge = boost::graph_traits<SystemGraph>::edge_descriptor;

// The directed link that crosses `cable` leaving `from` (one of its ends).
inline LinkId link_leaving(const Cable& cable, EndpointId from) {
  return 2 * cable.index + (from == cable.a ? 0U : 1U);
}

}  // namespace simctl
