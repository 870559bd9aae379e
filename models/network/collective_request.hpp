#pragma once
#include <vector>

#include "models/network/collective_algorithm.hpp"
#include "models/network/collective_op.hpp"
#include "models/network/path.hpp"

namespace simctl {

struct CollectiveRequest {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::vector<EndpointId> members;  // GPU endpoints in rank order; rank 0 is the root where there is one
  double bytes = 0.0;               // nccl-tests size: per-rank buffer (all_gather/reduce_scatter: the total)
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;  // a per-job override, or the tuner's choice
  Protocol protocol = Protocol::automatic;
};

}  // namespace simctl
