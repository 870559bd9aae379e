#include "workloads/offload.hpp"

#include <algorithm>

#include "sim/config/config_schema.hpp"
#include "workloads/ddp_trace.hpp"
#include "workloads/memory_estimate.hpp"
#include "workloads/stage_layout.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {
namespace {

bool to_cpu(const ConfigNode& node, std::string_view key) {
  return node.has(key) && node.choice(key, {"none", "cpu"}) == "cpu";
}

// Transformer blocks hold the activations worth offloading; the embedding's
// and the head's are small (the head's logits live only through the loss).
bool is_block(const ModelUnit& unit) { return !unit.shape.embedding && !unit.shape.head; }

Op copy(std::string name, OpPhase phase, CopyDirection direction, double bytes, std::vector<OpIndex> deps) {
  return Op{std::move(name), phase, Stream::copy, std::move(deps), CopyCall{direction, bytes}};
}

}  // namespace

Offload parse_offload(const ConfigNode& node) {
  expect_section(node, "workload.offload");
  return Offload{to_cpu(node, "optimizer"), to_cpu(node, "activations")};
}

OffloadOps::OffloadOps(const WorkloadSpec& spec)
    : spec_(spec), per_unit_gradients_(spec.parallel.gradient_replicas() == 1) {}

OffloadOps::Pass& OffloadOps::pass_of(const std::string& pass, std::size_t u) {
  auto at = std::find_if(passes_.begin(), passes_.end(), [&](const auto& p) { return p.first == pass; });
  if (at == passes_.end()) at = passes_.insert(passes_.end(), {pass, Pass{}});
  Pass& p = at->second;
  if (p.stored.size() <= u) p.stored.resize(u + 1), p.fetched.resize(u + 1);
  return p;
}

// Double buffering: a block's forward starts once the block two before it
// has left the GPU.
void OffloadOps::before_forward(RankOps& ops, const std::string& pass, std::size_t u, const ModelUnit& unit) {
  if (!spec_.offload.activations || !is_block(unit) || u < 2) return;
  const Pass& p = pass_of(pass, u);
  if (p.stored[u - 2]) ops.wait_before_next_compute(*p.stored[u - 2]);
}

void OffloadOps::after_forward(RankOps& ops, const std::string& pass, std::size_t u, const ModelUnit& unit) {
  if (!spec_.offload.activations || !is_block(unit)) return;
  Pass& p = pass_of(pass, u);
  p.stored[u] =
      ops.other(copy(pass + unit.name + ".activations.offload", OpPhase::forward, CopyDirection::device_to_host,
                     layer_activation_bytes(spec_), ops.deps_on_last_compute()),
                std::nullopt);
}

// Brings unit u's activations back, after their copy out and after the
// compute so far (which frees the buffer they land in).
void OffloadOps::fetch(RankOps& ops, const std::string& name, Pass& pass, std::size_t u) {
  if (pass.fetched[u] || !pass.stored[u]) return;
  std::vector<OpIndex> deps = ops.deps_on_last_compute();
  deps.push_back(*pass.stored[u]);
  pass.fetched[u] = ops.other(copy(name + ".activations.reload", OpPhase::backward, CopyDirection::host_to_device,
                                   layer_activation_bytes(spec_), std::move(deps)),
                              std::nullopt);
}

// A block's backward waits for its activations; the block below it is
// fetched now, while this one computes.
void OffloadOps::before_backward(RankOps& ops, const std::string& pass, std::size_t u,
                                 const std::vector<ModelUnit>& units) {
  if (!spec_.offload.activations || !is_block(units[u])) return;
  Pass& p = pass_of(pass, u);
  fetch(ops, pass + units[u].name, p, u);
  if (p.fetched[u]) ops.wait_before_next_compute(*p.fetched[u]);
  if (u > 0 && is_block(units[u - 1])) fetch(ops, pass + units[u - 1].name, p, u - 1);
}

void OffloadOps::after_backward(RankOps& ops, const std::string& pass, const ModelUnit& unit, bool last_micro_batch) {
  if (!spec_.offload.optimizer || !per_unit_gradients_ || !last_micro_batch || unit.parameters <= 0.0) return;
  const double bytes = unit.parameters * bytes_per_element(spec_.ddp.grad_dtype);
  gradient_copies_.push_back(ops.other(copy(pass + unit.name + ".grads.offload", OpPhase::backward,
                                            CopyDirection::device_to_host, bytes, ops.deps_on_last_compute()),
                                       std::nullopt));
}

// ZeRO-Offload's step: the gradients reach host memory, the CPU runs Adam
// over the rank's share (streaming its bytes through host memory), and the
// updated 16-bit weights go back to the GPU.
OpIndex OffloadOps::optimizer_step(RankOps& ops, std::vector<OpIndex> before_update, double parameters) {
  std::vector<OpIndex> deps = gradient_copies_;
  if (!per_unit_gradients_) {
    deps.push_back(ops.other(copy("grads.offload", OpPhase::optimizer, CopyDirection::device_to_host,
                                  parameters * bytes_per_element(spec_.ddp.grad_dtype), before_update),
                             std::nullopt));
  }
  deps.insert(deps.end(), before_update.begin(), before_update.end());
  const OpIndex step = ops.other(Op{"optimizer.cpu_adam", OpPhase::optimizer, Stream::loader, std::move(deps),
                                    HostWork{0.0, parameters * adam_bytes_per_parameter(spec_)}},
                                 std::nullopt);
  return ops.other(copy("optimizer.weights.upload", OpPhase::optimizer, CopyDirection::host_to_device,
                        parameters * bytes_per_element(spec_.precision), {step}),
                   std::nullopt);
}

}  // namespace simctl
