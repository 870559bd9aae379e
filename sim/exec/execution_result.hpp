#pragma once
// What one replay of a trace produced: when every op ran, and the counters
// the report turns into breakdowns and bottlenecks. Plain data, no behaviour.
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <vector>

#include "models/devices/compute_model.hpp"
#include "models/network/collective_algorithm.hpp"
#include "sim/core/units.hpp"
#include "workloads/trace.hpp"

namespace simctl {

struct OpTiming {
  TimePs start = 0;
  TimePs end = 0;
};

struct RankTimeline {
  std::pmr::vector<OpTiming> ops;  // parallel to the rank's ops
  // Per op, what bounds it (compute ops only; compute_model.hpp). It depends
  // on the program and the GPU type alone, so ranks alike share one.
  std::shared_ptr<const std::vector<KernelBound>> bound;
  TimePs finish = 0;  // end of the rank's last op

  KernelBound kernel_bound(std::size_t op) const { return bound ? (*bound)[op] : KernelBound::compute; }
};

struct OpRef {
  std::uint32_t rank = 0;
  OpIndex op = 0;
  friend bool operator==(const OpRef&, const OpRef&) = default;
};

// When a collective or transfer could start moving bytes: once the last of
// its parties arrived (a group's members, or a send and its receive).
struct Rendezvous {
  TimePs ready = 0;    // when the last party arrived
  OpRef last_arrival;  // the party that arrived last (ties: the lowest rank, then the send)
};

struct LinkUsage {
  double bytes = 0.0;  // bytes carried in this direction
  TimePs busy = 0;     // time with at least one flow on the link
};

// One kind of collective the replay ran: an op on a group of one parallel
// dimension and size, with the algorithm and protocol the runner chose.
struct CollectiveKind {
  CommDimension dimension = CommDimension::data;
  CollectiveOp op = CollectiveOp::all_reduce;
  std::uint32_t ranks = 0;  // members of the group
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  Protocol protocol = Protocol::simple;
  // Members on more than one node: the traffic leaves the node, so the
  // report's verdict looks for its bottleneck among the fabric's tiers.
  bool across_nodes = false;
  friend auto operator<=>(const CollectiveKind&, const CollectiveKind&) = default;
};

// The calls of one kind, summed. A call is one collective of a whole group
// (each member's op counts once); calls that move nothing (a group of one,
// an empty buffer) are not counted.
struct CollectiveUsage {
  CollectiveKind kind;
  std::uint64_t calls = 0;
  double bytes = 0.0;  // per-rank buffers as nccl-tests sizes them, summed over calls
  TimePs time = 0;     // from the last member's arrival to completion, summed over calls
};

// After a folded replay, how an image's meetings follow from its
// representative's: the same times, and a last arrival inside the replica
// moved to the image's own replica (a meeting that spans every replica, a
// data-parallel collective, has one last arrival for all).
struct ImageMeetings {
  std::vector<std::uint32_t> replica_of;            // per rank
  std::vector<std::uint32_t> position_of;           // per rank: its place in its replica
  std::vector<std::vector<std::uint32_t>> members;  // [replica][position] -> rank
  std::vector<std::vector<bool>> spanning;          // per representative rank, per meeting

  Rendezvous of_image(std::uint32_t image, std::uint32_t rep, std::size_t position, Rendezvous met) const {
    if (!spanning[rep][position])
      met.last_arrival.rank = members[replica_of[image]][position_of[met.last_arrival.rank]];
    return met;
  }
};

struct ExecutionResult {
  ExecutionResult() = default;
  ExecutionResult(const ExecutionResult&) = default;
  ExecutionResult(ExecutionResult&&) noexcept = default;
  // Assignment destroys the old result whole before taking the new one: the
  // default member-wise assignment would release timing_memory first and then
  // free the old timelines into a resource already gone.
  ExecutionResult& operator=(ExecutionResult&& other) noexcept {
    if (this != &other) {
      std::destroy_at(this);
      std::construct_at(this, std::move(other));
    }
    return *this;
  }
  ExecutionResult& operator=(const ExecutionResult& other) {
    if (this != &other) *this = ExecutionResult(other);
    return *this;
  }

  // Where the executor puts the ranks' timings (declared first, so it
  // outlives them on destruction); a timeline built by hand takes ordinary
  // memory.
  std::shared_ptr<std::pmr::memory_resource> timing_memory;
  // Per rank, the timings the replay wrote. After a folded replay an image's
  // entry is empty: it shares its representative's (copy_of), so that a
  // 16-replica fold keeps one timeline, not sixteen. Read through timeline().
  std::vector<RankTimeline> timelines;
  // Per rank, its collectives and transfers in list order (the ops
  // meets_others() picks): their rendezvous as the executor saw them. A
  // result built by hand leaves this empty. After a folded replay an image's
  // entry is empty too: read through meeting(), which derives it from its
  // representative's (a 1024-GPU step's copies were 300 MB).
  std::vector<std::pmr::vector<Rendezvous>> meetings;
  std::shared_ptr<const ImageMeetings> image_meetings;  // set after a folded replay
  std::vector<LinkUsage> links;                         // indexed by LinkId
  std::vector<CollectiveUsage> collectives;             // ordered by kind
  // After a folded replay, per rank: the rank whose timeline it shares and
  // whose meetings its own derive from (itself for a replayed rank), so that
  // reports may derive an image's figures from its representative's. Empty
  // when every rank was replayed.
  std::vector<std::uint32_t> copy_of;
  TimePs step_time = 0;      // latest rank finish
  std::uint64_t events = 0;  // engine events processed
  std::uint64_t flows = 0;   // point-to-point flows simulated

  std::size_t rank_count() const { return timelines.size(); }
  // Rank r's op timings: its own, or for an image of a folded replay its
  // representative's, which a full replay would have given it too.
  const RankTimeline& timeline(std::uint32_t r) const { return timelines[copy_of.empty() ? r : copy_of[r]]; }
  // Rank r's meeting at `position` of its list.
  Rendezvous meeting(std::uint32_t r, std::size_t position) const {
    if (copy_of.empty() || copy_of[r] == r) return meetings[r][position];
    return image_meetings->of_image(r, copy_of[r], position, meetings[copy_of[r]][position]);
  }
};

}  // namespace simctl
