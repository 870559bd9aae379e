#pragma once
// Ranks as coordinates on the TP x CP x DP x PP grid. Rank numbers follow the
// plan's order (fastest-varying dimension first; Megatron's default is
// tensor, context, data, pipeline), so consecutive ranks share a TP group and,
// with GPUs numbered node by node, a TP group of up to 8 stays inside a node;
// CP ranks come right after tensor wherever the order puts it (Megatron's
// tp-cp-ep-dp-pp), so a CP ring of TP groups spans the next GPUs over.
#include <array>
#include <cstdint>
#include <vector>

#include "workloads/workload_config.hpp"

namespace simctl {

struct RankCoord {
  std::int64_t tensor = 0;
  std::int64_t data = 0;
  std::int64_t pipeline = 0;
  std::int64_t context = 0;
};

class RankGrid {
 public:
  explicit RankGrid(const ParallelPlan& plan);

  std::uint32_t world_size() const { return static_cast<std::uint32_t>(size(0) * size(1) * size(2) * size(3)); }
  RankCoord coord(std::uint32_t rank) const;
  std::uint32_t rank(const RankCoord& c) const;
  // The ranks that differ from `rank` only along `dim`, by that coordinate.
  std::vector<std::uint32_t> group(std::uint32_t rank, ParallelDim dim) const;
  // The ranks that differ from `rank` only along data and context, in rank
  // order: those holding the same weights.
  std::vector<std::uint32_t> data_context_group(std::uint32_t rank) const;

 private:
  std::int64_t size(std::size_t position) const { return sizes_[position]; }
  std::int64_t extent(ParallelDim dim) const;
  std::array<ParallelDim, 4> order_;
  std::array<std::int64_t, 4> sizes_;  // by position in order_
};

std::int64_t& coordinate(RankCoord& c, ParallelDim dim);
std::int64_t coordinate(const RankCoord& c, ParallelDim dim);

}  // namespace simctl
