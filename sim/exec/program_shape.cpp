#include "sim/exec/program_shape.hpp"

#include <stdexcept>
#include <string>

namespace simctl {

ProgramShape shape_of_program(const std::vector<Op>& ops, std::uint32_t rank) {
  ProgramShape shape;
  shape.dep_count.resize(ops.size());
  shape.dependents_start.assign(ops.size() + 1, 0);
  shape.meeting_position.assign(ops.size(), ProgramShape::kNoMeeting);
  for (OpIndex i = 0; i < ops.size(); ++i) {
    for (OpIndex dep : ops[i].deps) {
      if (dep >= i) {
        throw std::runtime_error("rank " + std::to_string(rank) + " op " + std::to_string(i) + " ('" + ops[i].name +
                                 "') depends on a later op " + std::to_string(dep));
      }
      ++shape.dependents_start[dep + 1];
    }
    if (ops[i].deps.size() > kMaxDeps) {
      throw std::runtime_error("rank " + std::to_string(rank) + " op " + std::to_string(i) + " ('" + ops[i].name +
                               "') waits on " + std::to_string(ops[i].deps.size()) + " ops; at most " +
                               std::to_string(kMaxDeps) + " are supported (chain them through an op in between)");
    }
    shape.dep_count[i] = static_cast<DepCount>(ops[i].deps.size());
    shape.stream_order[stream_index(ops[i].stream)].push_back(i);
    if (meets_others(ops[i])) shape.meeting_position[i] = shape.meeting_count++;
    // Only the compute stream's kernels chain (Executor::start_compute); a
    // kernel a trace puts on another stream runs alone (start_op).
    shape.brief.push_back(
        {ops[i].stream, std::holds_alternative<ComputeWork>(ops[i].work) && ops[i].stream == Stream::compute});
  }
  for (std::size_t i = 0; i < ops.size(); ++i) shape.dependents_start[i + 1] += shape.dependents_start[i];
  shape.dependents.resize(shape.dependents_start.back());
  std::vector<std::uint32_t> fill(shape.dependents_start.begin(), shape.dependents_start.end() - 1);
  for (OpIndex i = 0; i < ops.size(); ++i) {
    for (OpIndex dep : ops[i].deps) shape.dependents[fill[dep]++] = i;
  }
  return shape;
}

bool issued_by_host(const Op& op) { return op.host_issued && !std::holds_alternative<HostWork>(op.work); }

std::vector<TimePs> host_issue_times(const std::vector<Op>& ops, TimePs per_op) {
  std::vector<TimePs> out;
  if (per_op <= 0) return out;
  out.reserve(ops.size());
  TimePs issued = 0;
  for (const Op& op : ops) {
    if (issued_by_host(op)) issued += per_op;
    out.push_back(issued);
  }
  return out;
}

}  // namespace simctl
