#include "workloads/rank_grid.hpp"

#include <algorithm>

namespace simctl {
namespace {

std::int64_t dim_size(const ParallelPlan& plan, ParallelDim dim) {
  switch (dim) {
    case ParallelDim::tensor: return plan.tensor;
    case ParallelDim::data: return plan.data;
    case ParallelDim::pipeline: return plan.pipeline;
    case ParallelDim::context: return plan.context;
  }
  return 1;
}

// The plan's three-name order with context inserted right after tensor.
std::array<ParallelDim, 4> full_order(const std::array<ParallelDim, 3>& order) {
  std::array<ParallelDim, 4> out{};
  std::size_t at = 0;
  for (ParallelDim dim : order) {
    out[at++] = dim;
    if (dim == ParallelDim::tensor) out[at++] = ParallelDim::context;
  }
  return out;
}

}  // namespace

std::int64_t& coordinate(RankCoord& c, ParallelDim dim) {
  switch (dim) {
    case ParallelDim::tensor: return c.tensor;
    case ParallelDim::data: return c.data;
    case ParallelDim::context: return c.context;
    case ParallelDim::pipeline: break;
  }
  return c.pipeline;
}

std::int64_t coordinate(const RankCoord& c, ParallelDim dim) {
  RankCoord copy = c;
  return coordinate(copy, dim);
}

RankGrid::RankGrid(const ParallelPlan& plan) : order_(full_order(plan.order)) {
  for (std::size_t i = 0; i < order_.size(); ++i) sizes_[i] = dim_size(plan, order_[i]);
}

std::int64_t RankGrid::extent(ParallelDim dim) const {
  for (std::size_t i = 0; i < order_.size(); ++i) {
    if (order_[i] == dim) return sizes_[i];
  }
  return 1;
}

RankCoord RankGrid::coord(std::uint32_t rank) const {
  RankCoord c;
  std::int64_t rest = rank;
  for (std::size_t i = 0; i < order_.size(); ++i) {
    coordinate(c, order_[i]) = rest % sizes_[i];
    rest /= sizes_[i];
  }
  return c;
}

std::uint32_t RankGrid::rank(const RankCoord& c) const {
  std::int64_t r = 0;
  for (std::size_t i = order_.size(); i-- > 0;) r = r * sizes_[i] + coordinate(c, order_[i]);
  return static_cast<std::uint32_t>(r);
}

std::vector<std::uint32_t> RankGrid::group(std::uint32_t member, ParallelDim dim) const {
  RankCoord c = coord(member);
  std::vector<std::uint32_t> out;
  for (std::int64_t k = 0; k < extent(dim); ++k) {
    coordinate(c, dim) = k;
    out.push_back(rank(c));
  }
  return out;
}

std::vector<std::uint32_t> RankGrid::data_context_group(std::uint32_t member) const {
  RankCoord c = coord(member);
  std::vector<std::uint32_t> out;
  for (std::int64_t d = 0; d < extent(ParallelDim::data); ++d) {
    for (std::int64_t k = 0; k < extent(ParallelDim::context); ++k) {
      c.data = d;
      c.context = k;
      out.push_back(rank(c));
    }
  }
  std::sort(out.begin(), out.end());  // a communicator's ranks in rank order, as Megatron builds it
  return out;
}

}  // namespace simctl
