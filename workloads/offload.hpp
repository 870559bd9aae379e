#pragma once
// Offloading training state to host memory, as ZeRO-Offload and activation
// offloading do it:
//
//   offload:
//     optimizer: cpu     # or none (default)
//     activations: cpu   # or none (default)
//
// optimizer: cpu is ZeRO-Offload (Ren et al., "ZeRO-Offload: Democratizing
// Billion-Scale Model Training", USENIX ATC 2021, Sec. 4): the fp32 master
// weights and Adam's moments live in host memory; each unit's gradients are
// copied device->host as backward produces them (DeepSpeed copies per
// gradient bucket), the Adam step runs on the host CPU, and the updated
// 16-bit weights are copied host->device. The paper counts 2 bytes per
// parameter each way (4M per step). Under data parallelism the rank's share
// of the gradients is copied once its gradient sync is done.
//
// activations: cpu is activation offloading (Megatron-core / Transformer
// Engine CPU offloading, PyTorch's save_on_cpu): each transformer block's
// saved activations go device->host on the copy stream after its forward,
// and come back host->device before its backward, one block ahead. The GPU
// keeps two blocks' buffers (the block in use and the one in transit), so a
// block's forward waits for the copy-out of the block two before it and a
// block's backward for its own copy-in; when the link is slower than the
// compute, the copies set the pace.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/config_node.hpp"
#include "workloads/rank_ops.hpp"

namespace simctl {

struct Offload {
  bool optimizer = false;    // optimizer: cpu
  bool activations = false;  // activations: cpu
  bool any() const { return optimizer || activations; }
};

// `node` is the workload's `offload:` mapping.
Offload parse_offload(const ConfigNode& node);

struct WorkloadSpec;
struct ModelUnit;

// The offload ops of one pipeline stage's program, placed around the units'
// forward and backward ops by the trace builder (parallel_trace.cpp).
class OffloadOps {
 public:
  explicit OffloadOps(const WorkloadSpec& spec);

  // `pass` names one micro-batch's pass through one chunk ("mb3."), `u` is
  // the unit's position in the chunk.
  void before_forward(RankOps& ops, const std::string& pass, std::size_t u, const ModelUnit& unit);
  void after_forward(RankOps& ops, const std::string& pass, std::size_t u, const ModelUnit& unit);
  void before_backward(RankOps& ops, const std::string& pass, std::size_t u, const std::vector<ModelUnit>& units);
  // With optimizer offload and no data-parallel sync, copies the unit's
  // gradients out on the last micro-batch; a synced plan copies the rank's
  // share after the sync instead (optimizer_step).
  void after_backward(RankOps& ops, const std::string& pass, const ModelUnit& unit, bool last_micro_batch);

  // The optimizer step on the host for `parameters` (the rank's share), after
  // `before_update` and the gradient copies; returns the op the updated
  // weights are ready after (their host->device copy).
  OpIndex optimizer_step(RankOps& ops, std::vector<OpIndex> before_update, double parameters);

 private:
  struct Pass {
    std::vector<std::optional<OpIndex>> stored;   // device->host copy per unit (blocks only)
    std::vector<std::optional<OpIndex>> fetched;  // host->device copy per unit
  };
  Pass& pass_of(const std::string& pass, std::size_t u);
  void fetch(RankOps& ops, const std::string& name, Pass& pass, std::size_t u);

  const WorkloadSpec& spec_;
  bool per_unit_gradients_;  // no data-parallel sync: copy each unit's gradients as backward ends
  std::vector<std::pair<std::string, Pass>> passes_;
  std::vector<OpIndex> gradient_copies_;
};

}  // namespace simctl
