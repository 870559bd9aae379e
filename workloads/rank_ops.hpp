#pragma once
// Builds one rank's op list: compute ops chain on the compute stream, and
// communication is placed on its stream with the compute op that must wait
// for it named by position (so a collective can overlap the compute between).
#include <optional>
#include <string>
#include <vector>

#include "workloads/trace.hpp"

namespace simctl {

class RankOps {
 public:
  // Appends a compute op after the previous one, also waiting for the
  // communication ops whose turn it is.
  OpIndex compute(std::string name, OpPhase phase, const ComputeWork& work, std::vector<OpIndex> extra_deps = {});
  // Appends a non-compute op. `consumer_offset`: the compute op that many
  // positions ahead (0: the next) waits for it; nullopt: no compute op does.
  OpIndex other(Op op, std::optional<int> consumer_offset);

  std::optional<OpIndex> last_compute() const { return last_compute_; }
  std::vector<OpIndex> deps_on_last_compute() const;
  std::vector<Op> take() { return std::move(ops_); }

 private:
  struct Wait {
    OpIndex op;
    int remaining;  // compute ops to skip before the one that waits
  };
  std::vector<Op> ops_;
  std::optional<OpIndex> last_compute_;
  std::vector<Wait> waits_;
};

// Deduplicated process groups: the same member list gets the same index.
class GroupTable {
 public:
  std::uint32_t id(const std::vector<std::uint32_t>& members);
  std::vector<std::vector<std::uint32_t>> take() { return std::move(groups_); }

 private:
  std::vector<std::vector<std::uint32_t>> groups_;
  std::vector<std::pair<std::vector<std::uint32_t>, std::uint32_t>> index_;  // sorted by members
};

}  // namespace simctl
