#pragma once
// Pieces of work through stages in order, one piece per stage at a time:
// stage s takes piece k once it has finished piece k-1 and stage s-1 has
// finished piece k. NCCL's CollNet runs its in-node and in-network steps so,
// chunk by chunk, inside one kernel.
#include <functional>
#include <vector>

namespace simctl {

using StageWork = std::function<void(std::function<void()>)>;

// work[s][k] is stage s on piece k; every stage has the same number of
// pieces, at least one. `done` runs when the last stage finishes the last.
void run_stage_pipeline(std::vector<std::vector<StageWork>> work, std::function<void()> done);

}  // namespace simctl
