// Context parallelism in the trace: where CP ranks sit, which ranks sum
// gradients, the ring's K/V and dK/dV transfers and their bytes, the
// all-gather and Ulysses all-to-all bytes, the attention FLOPs each rank
// keeps, and activation memory per rank.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>

#include "memory_items.hpp"
#include "workloads/memory_estimate.hpp"
#include "workloads/parallel_trace.hpp"
#include "workloads/rank_grid.hpp"

using namespace simctl;
using simctl::testing::bytes_of;

namespace {

// A Llama-style model: 2 blocks of hidden 1024, 16 heads of 64, 4 KV heads.
TransformerSpec small_llama(std::int64_t seq_len) {
  TransformerSpec m{"small-llama", "", 2, 1024, 16, 4, 2816, 32000, seq_len, true};
  m.norm = NormKind::rms_norm;
  m.position = PositionKind::rope;
  m.linear_bias = false;
  m.tied_embeddings = false;
  return m;
}

WorkloadSpec cp_plan(std::int64_t context, ContextAlgorithm algorithm = ContextAlgorithm::ring, std::int64_t tensor = 1,
                     std::int64_t data = 1) {
  WorkloadSpec spec;
  spec.model = small_llama(8192);
  spec.parallel.context = context;
  spec.parallel.context_algorithm = algorithm;
  spec.parallel.tensor = tensor;
  spec.parallel.sequence = tensor > 1;
  spec.parallel.data = data;
  spec.micro_batch = 1;
  spec.grad_accum = 1;
  spec.global_batch = data;
  return spec;
}

constexpr double kBf16 = 2.0;

// One rank's ops with its slots resolved.
std::vector<Op> ops_of(const Trace& trace, std::uint32_t rank) { return resolved_ops(trace, rank); }

std::vector<const Op*> context_transfers(const std::vector<Op>& ops, PeerTransfer::Side side, OpPhase phase) {
  std::vector<const Op*> out;
  for (const Op& op : ops) {
    const auto* t = std::get_if<PeerTransfer>(&op.work);
    if (t != nullptr && t->dimension == CommDimension::context && t->side == side && op.phase == phase)
      out.push_back(&op);
  }
  return out;
}

std::vector<const Op*> context_collectives(const std::vector<Op>& ops, CollectiveOp kind, OpPhase phase) {
  std::vector<const Op*> out;
  for (const Op& op : ops) {
    const auto* c = std::get_if<CollectiveCall>(&op.work);
    if (c != nullptr && c->dimension == CommDimension::context && c->op == kind && op.phase == phase)
      out.push_back(&op);
  }
  return out;
}

// FLOPs of the rank's attention kernels in one phase.
double attention_flops(const std::vector<Op>& ops, OpPhase phase) {
  double sum = 0.0;
  for (const Op& op : ops) {
    const auto* w = std::get_if<ComputeWork>(&op.work);
    if (w != nullptr && w->kind == ComputeKind::attention && op.phase == phase) sum += w->flops;
  }
  return sum;
}

}  // namespace

TEST_CASE("CP ranks sit right after TP ranks, and gradients are summed over data x context", "[workloads][context]") {
  const WorkloadSpec spec = cp_plan(4, ContextAlgorithm::ring, 2, 2);  // 16 ranks
  const RankGrid grid(spec.parallel);
  CHECK(grid.world_size() == 16);
  CHECK(grid.group(0, ParallelDim::tensor) == std::vector<std::uint32_t>{0, 1});
  CHECK(grid.group(0, ParallelDim::context) == std::vector<std::uint32_t>{0, 2, 4, 6});
  CHECK(grid.group(0, ParallelDim::data) == std::vector<std::uint32_t>{0, 8});
  const Trace trace = build_parallel_trace(spec);
  // Slot 1 (the data group) binds the 8 ranks holding rank 0's weights.
  const auto& dp = trace.groups[trace.ranks[0].groups[1]];
  CHECK(dp == std::vector<std::uint32_t>{0, 2, 4, 6, 8, 10, 12, 14});
  // The gradient all-reduces run on it.
  bool reduced = false;
  for (const Op& op : ops_of(trace, 0)) {
    const auto* c = std::get_if<CollectiveCall>(&op.work);
    if (c != nullptr && c->dimension == CommDimension::data) {
      CHECK(trace.groups[c->group].size() == 8);
      reduced = true;
    }
  }
  CHECK(reduced);
}

TEST_CASE("ring attention passes K/V blocks around the CP ring, and dK/dV behind them", "[workloads][context]") {
  const std::int64_t cp = 4, t = 2;
  const Trace trace = build_parallel_trace(cp_plan(cp, ContextAlgorithm::ring, t));
  const std::vector<Op> ops = ops_of(trace, 2);  // CP coordinate 1 of TP rank 0
  // One block: this rank's s/cp positions of K and V, on its kv_heads / t heads.
  const double block = 1.0 * (8192 / cp) * 2.0 * (4 * 64 / t) * kBf16;
  const auto sends = context_transfers(ops, PeerTransfer::Side::send, OpPhase::forward);
  const auto receives = context_transfers(ops, PeerTransfer::Side::receive, OpPhase::forward);
  // cp - 1 steps per layer, 2 layers.
  REQUIRE(sends.size() == 2 * (cp - 1));
  REQUIRE(receives.size() == sends.size());
  for (const Op* op : sends) {
    const auto& t_send = std::get<PeerTransfer>(op->work);
    CHECK(t_send.bytes == Approx(block));
    CHECK(t_send.peer == 4);  // the next rank of the ring 0, 2, 4, 6
    CHECK(op->stream == Stream::overlap_send);
  }
  for (const Op* op : receives) CHECK(std::get<PeerTransfer>(op->work).peer == 0);
  // Backward: the K/V blocks again (cp - 1) and every block's dK/dV accumulator (cp hops).
  const auto back = context_transfers(ops, PeerTransfer::Side::send, OpPhase::backward);
  CHECK(back.size() == 2 * ((cp - 1) + cp));
  for (const Op* op : back) CHECK(std::get<PeerTransfer>(op->work).bytes == Approx(block));
  // No CP traffic without CP.
  const std::vector<Op> plain = ops_of(build_parallel_trace(cp_plan(1, ContextAlgorithm::ring, t)), 0);
  CHECK(context_transfers(plain, PeerTransfer::Side::send, OpPhase::forward).empty());
}

TEST_CASE("each CP rank computes 1/cp of the causal attention, load-balanced", "[workloads][context]") {
  const double whole_forward = attention_flops(ops_of(build_parallel_trace(cp_plan(1)), 0), OpPhase::forward);
  const double whole_backward = attention_flops(ops_of(build_parallel_trace(cp_plan(1)), 0), OpPhase::backward);
  for (ContextAlgorithm a : {ContextAlgorithm::ring, ContextAlgorithm::all_gather, ContextAlgorithm::all_to_all}) {
    INFO(config_word(a));
    const Trace trace = build_parallel_trace(cp_plan(4, a));
    for (std::uint32_t r = 0; r < 4; ++r) {
      CHECK(attention_flops(ops_of(trace, r), OpPhase::forward) == Approx(whole_forward / 4));
      CHECK(attention_flops(ops_of(trace, r), OpPhase::backward) == Approx(whole_backward / 4));
    }
  }
  // The ring's steps are equal blocks: step 0 causal on the rank's own
  // positions, the others unmasked on half a block each.
  std::vector<ComputeWork> steps;
  for (const Op& op : ops_of(build_parallel_trace(cp_plan(4)), 0)) {
    const auto* w = std::get_if<ComputeWork>(&op.work);
    if (w != nullptr && w->kind == ComputeKind::attention && op.phase == OpPhase::forward) steps.push_back(*w);
  }
  REQUIRE(steps.size() == 2 * 4);
  CHECK(steps[0].causal);
  CHECK(steps[0].n == 2048);
  CHECK_FALSE(steps[1].causal);
  CHECK(steps[1].n == 1024);
  CHECK(steps[1].flops == Approx(steps[0].flops));
}

TEST_CASE("all_gather CP gathers K/V of the whole sequence and reduce-scatters dK/dV", "[workloads][context]") {
  const std::int64_t cp = 4, t = 2;
  const std::vector<Op> ops = ops_of(build_parallel_trace(cp_plan(cp, ContextAlgorithm::all_gather, t)), 0);
  const double gathered = 1.0 * 8192 * 2.0 * (4 * 64 / t) * kBf16;
  const auto gathers = context_collectives(ops, CollectiveOp::all_gather, OpPhase::forward);
  REQUIRE(gathers.size() == 2);
  for (const Op* op : gathers) CHECK(std::get<CollectiveCall>(op->work).bytes == Approx(gathered));
  const auto scatters = context_collectives(ops, CollectiveOp::reduce_scatter, OpPhase::backward);
  REQUIRE(scatters.size() == 2);
  for (const Op* op : scatters) CHECK(std::get<CollectiveCall>(op->work).bytes == Approx(gathered));
}

TEST_CASE("Ulysses moves Q, K, V and the output by all-to-all, sized as its formula gives", "[workloads][context]") {
  const std::int64_t cp = 4, t = 2;
  const Trace trace = build_parallel_trace(cp_plan(cp, ContextAlgorithm::all_to_all, t));
  const std::vector<Op> ops = ops_of(trace, 0);
  // Per rank per layer: its s/cp positions of Q (hidden / t wide) and of K
  // and V (kv_width / t each), then of the output (hidden / t).
  const double local = 8192.0 / cp;
  const double qkv = local * (1024.0 / t + 2.0 * 4 * 64 / t) * kBf16;
  const double out = local * (1024.0 / t) * kBf16;
  const auto forward = context_collectives(ops, CollectiveOp::all_to_all, OpPhase::forward);
  REQUIRE(forward.size() == 2 * 2);
  CHECK(std::get<CollectiveCall>(forward[0]->work).bytes == Approx(qkv));
  CHECK(std::get<CollectiveCall>(forward[1]->work).bytes == Approx(out));
  const auto backward = context_collectives(ops, CollectiveOp::all_to_all, OpPhase::backward);
  REQUIRE(backward.size() == 2 * 2);
  CHECK(std::get<CollectiveCall>(backward[0]->work).bytes == Approx(out));
  CHECK(std::get<CollectiveCall>(backward[1]->work).bytes == Approx(qkv));
  // On the CP group: ranks 0, 2, 4, 6.
  CHECK(trace.groups[std::get<CollectiveCall>(forward[0]->work).group] == std::vector<std::uint32_t>{0, 2, 4, 6});
  // Attention runs on heads / (t * cp) heads over the whole sequence.
  for (const Op& op : ops) {
    const auto* w = std::get_if<ComputeWork>(&op.work);
    if (w == nullptr || w->kind != ComputeKind::attention) continue;
    CHECK(w->batch == 16 / t / cp);
    CHECK(w->n == 8192);
  }
}

TEST_CASE("CP divides the activations per rank and counts the K/V buffers in flight", "[workloads][context][memory]") {
  const StageMemory whole = estimate_memory(cp_plan(1))[0];
  const StageMemory halved = estimate_memory(cp_plan(2))[0];
  CHECK(bytes_of(halved, "activations") == Approx(bytes_of(whole, "activations") / 2));
  // Weights are not split by CP.
  CHECK(bytes_of(halved, "weights") == Approx(bytes_of(whole, "weights")));
  // The ring holds 4 K/V blocks of s/cp positions beside one layer: the
  // logits of s/cp positions replace those of s.
  const double block = 8192.0 / 2 * 2 * (4 * 64) * kBf16;
  const double logits = 8192.0 * 32000 * (kBf16 + 4.0);
  CHECK(bytes_of(halved, "temporary") == Approx(logits / 2 + 4 * block));
  CHECK(bytes_of(whole, "temporary") == Approx(logits));
  // ZeRO-1 shards the optimizer over data x context ranks.
  WorkloadSpec zero1 = cp_plan(2);
  zero1.strategy = Strategy::zero1;
  WorkloadSpec zero1_alone = cp_plan(1);
  zero1_alone.strategy = Strategy::zero1;
  CHECK(bytes_of(estimate_memory(zero1)[0], "optimizer_states") ==
        Approx(bytes_of(estimate_memory(zero1_alone)[0], "optimizer_states") / 2));
}
