#include "workloads/rank_grid.hpp"

namespace simctl {
namespace {

std::int64_t dim_size(const ParallelPlan& plan, ParallelDim dim) {
  switch (dim) {
    case ParallelDim::tensor: return plan.tensor;
    case ParallelDim::data: return plan.data;
    case ParallelDim::pipeline: return plan.pipeline;
  }
  return 1;
}

}  // namespace

std::int64_t& coordinate(RankCoord& c, ParallelDim dim) {
  switch (dim) {
    case ParallelDim::tensor: return c.tensor;
    case ParallelDim::data: return c.data;
    case ParallelDim::pipeline: break;
  }
  return c.pipeline;
}

std::int64_t coordinate(const RankCoord& c, ParallelDim dim) {
  RankCoord copy = c;
  return coordinate(copy, dim);
}

RankGrid::RankGrid(const ParallelPlan& plan) : order_(plan.order) {
  for (std::size_t i = 0; i < 3; ++i) sizes_[i] = dim_size(plan, order_[i]);
}

RankCoord RankGrid::coord(std::uint32_t rank) const {
  RankCoord c;
  std::int64_t rest = rank;
  for (std::size_t i = 0; i < 3; ++i) {
    coordinate(c, order_[i]) = rest % sizes_[i];
    rest /= sizes_[i];
  }
  return c;
}

std::uint32_t RankGrid::rank(const RankCoord& c) const {
  std::int64_t r = 0;
  for (std::size_t i = 3; i-- > 0;) r = r * sizes_[i] + coordinate(c, order_[i]);
  return static_cast<std::uint32_t>(r);
}

std::vector<std::uint32_t> RankGrid::group(std::uint32_t member, ParallelDim dim) const {
  RankCoord c = coord(member);
  std::int64_t extent = 1;
  for (std::size_t i = 0; i < 3; ++i) {
    if (order_[i] == dim) extent = sizes_[i];
  }
  std::vector<std::uint32_t> out;
  for (std::int64_t k = 0; k < extent; ++k) {
    coordinate(c, dim) = k;
    out.push_back(rank(c));
  }
  return out;
}

}  // namespace simctl
