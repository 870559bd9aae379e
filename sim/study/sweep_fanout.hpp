#pragma once
// Spreading a sweep's points over the processes of a ProcessGroup (MPI
// ranks): each takes every size-th point, and rank 0 gathers the rows back
// into point order, so the outputs equal a single process's byte for byte.
#include <cstdint>
#include <vector>

#include "sim/study/process_group.hpp"
#include "sim/study/sweep_rows.hpp"

namespace simctl {

// Of `points`, those at positions rank, rank + size, rank + 2 size, ...
std::vector<std::uint64_t> points_of_process(const std::vector<std::uint64_t>& points, const ProcessGroup& group);

// On rank 0, every process's rows sorted by point; elsewhere, empty.
std::vector<PointRow> gather_rows(ProcessGroup& group, const std::vector<PointRow>& mine);

}  // namespace simctl
