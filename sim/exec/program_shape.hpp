#pragma once
// What the executor needs to know about a program before replaying it: how
// many dependencies each op waits for, who waits on it, and each stream's
// order. It depends on the ops alone, so every rank bound to a program shares
// one shape; per-rank replay state is then a few counters, not a graph.
#include <array>
#include <cstdint>
#include <vector>

#include "workloads/trace.hpp"

namespace simctl {

constexpr std::size_t kStreamCount = 8;

constexpr std::size_t stream_index(Stream s) { return static_cast<std::size_t>(s); }

// How many ops one op waits for. Two bytes, because every rank keeps one
// counter per op: at 1024 GPUs that is 41 M counters.
using DepCount = std::uint16_t;
constexpr std::size_t kMaxDeps = UINT16_MAX;

struct ProgramShape {
  std::vector<DepCount> dep_count;              // per op
  std::vector<std::uint32_t> dependents_start;  // per op, plus one: CSR offsets into dependents
  std::vector<OpIndex> dependents;              // ops that wait for each op, grouped by op
  std::array<std::vector<OpIndex>, kStreamCount> stream_order;
  // Per op, its place among the program's collectives and transfers (where
  // ExecutionResult::meetings keeps its rendezvous), or kNoMeeting.
  static constexpr std::uint32_t kNoMeeting = UINT32_MAX;
  // Per op, what the replay asks on nearly every event, kept apart from the
  // ops themselves: ranks at different points of one program would
  // otherwise pull a ~100-byte Op into cache for one field.
  struct Brief {
    Stream stream = Stream::compute;
    bool compute = false;  // a kernel on the compute stream
  };
  std::vector<Brief> brief;
  std::vector<std::uint32_t> meeting_position;
  std::uint32_t meeting_count = 0;
  // Per op, when the host has issued it (host_issue_times); empty when the
  // trace's host is never the bound.
  std::vector<TimePs> issue_time;
};

// Whether the host issues `op` to the GPU: a kernel, copy, collective or
// transfer. Host work runs on the CPU itself.
bool issued_by_host(const Op& op);
// When the host has issued each op: it issues them in list order, `per_op`
// each, from time 0, so op i is out at the sum over the ops up to it that it
// issues. Empty when per_op is 0.
std::vector<TimePs> host_issue_times(const std::vector<Op>& ops, TimePs per_op);
inline TimePs issued_at(const ProgramShape& shape, OpIndex op) {
  return shape.issue_time.empty() ? 0 : shape.issue_time[op];
}

// Throws std::runtime_error naming `rank` if an op depends on a later one or
// on more than kMaxDeps ops.
ProgramShape shape_of_program(const std::vector<Op>& ops, std::uint32_t rank);

}  // namespace simctl
