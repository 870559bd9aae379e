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

  // The next compute op appended also waits for `op`.
  void wait_before_next_compute(OpIndex op) { waits_.push_back({op, 0}); }

  // Op `op` runs inside the host call of the op before it (Op::host_issued).
  void not_host_issued(OpIndex op) { ops_[op].host_issued = false; }

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

// Deduplicated process groups: the same communicator over the same members
// gets the same index.
class GroupTable {
 public:
  // The id of the group `members` form as communicator `communicator` (the
  // program's slot). Two communicators over the same ranks are two groups,
  // as in NCCL: each keeps its own order of calls. (With expert = data, a
  // stage's EP group has the DP group's members; sharing one id mixed their
  // calls and crashed the replay.)
  std::uint32_t id(const std::vector<std::uint32_t>& members, std::uint32_t communicator);
  std::vector<std::vector<std::uint32_t>> take() { return std::move(groups_); }

 private:
  std::vector<std::vector<std::uint32_t>> groups_;
  using Key = std::pair<std::uint32_t, std::vector<std::uint32_t>>;  // (communicator, members)
  std::vector<std::pair<Key, std::uint32_t>> index_;                 // sorted by key
};

}  // namespace simctl
