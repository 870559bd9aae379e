#include "workloads/parallel_trace.hpp"

#include <catch2/catch.hpp>
#include <map>

#include "workloads/data_parallel_trace.hpp"
#include "workloads/model_catalogue.hpp"

using namespace simctl;

namespace {

WorkloadSpec small_gpt(std::int64_t tensor, std::int64_t pipeline, std::int64_t data, std::int64_t micro_batches) {
  WorkloadSpec spec;
  spec.model = TransformerSpec{"small", "", 8, 1024, 16, 16, 4096, 1024, 512, false};
  spec.parallel.tensor = tensor;
  spec.parallel.pipeline = pipeline;
  spec.parallel.data = data;
  spec.micro_batch = 2;
  spec.grad_accum = micro_batches;
  spec.global_batch = 2 * data * micro_batches;
  return spec;
}

std::map<CollectiveOp, int> collectives(const std::vector<Op>& rank, CommDimension dim) {
  std::map<CollectiveOp, int> count;
  for (const auto& op : rank) {
    if (const auto* c = std::get_if<CollectiveCall>(&op.work); c && c->dimension == dim) ++count[c->op];
  }
  return count;
}

int transfers(const std::vector<Op>& rank, PeerTransfer::Side side, std::uint32_t peer) {
  int n = 0;
  for (const auto& op : rank) {
    if (const auto* t = std::get_if<PeerTransfer>(&op.work); t && t->side == side && t->peer == peer) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("Megatron TP: two all-reduces per layer forward and two backward", "[workloads][tp]") {
  const Trace trace = build_parallel_trace(small_gpt(4, 1, 1, 1));
  REQUIRE(trace.ranks.size() == 4);
  const auto c = collectives(resolved_ops(trace, 0), CommDimension::tensor);
  // 8 layers x (2 fwd + 2 bwd), the embedding's, the LM head's dgrad and the
  // vocab-parallel loss.
  CHECK(c.at(CollectiveOp::all_reduce) == 8 * 4 + 3);
  CHECK(trace.groups[0] == std::vector<std::uint32_t>{0, 1, 2, 3});
}

TEST_CASE("sequence parallelism swaps all-reduces for all-gathers and reduce-scatters", "[workloads][tp]") {
  WorkloadSpec spec = small_gpt(4, 1, 1, 1);
  spec.parallel.sequence = true;
  const auto c = collectives(resolved_ops(build_parallel_trace(spec), 0), CommDimension::tensor);
  CHECK(c.at(CollectiveOp::reduce_scatter) == 8 * 4 + 2);
  // Forward 2 per layer, backward 2 for dY and 2 to re-gather saved inputs.
  CHECK(c.at(CollectiveOp::all_gather) == 8 * 6 + 3);
  CHECK(c.at(CollectiveOp::all_reduce) == 1);  // the loss statistics
}

TEST_CASE("TP shards the GEMMs: per-rank GEMM FLOPs are 1/t", "[workloads][tp]") {
  auto gemm_flops = [](const Trace& t) {
    double f = 0;
    for (const auto& op : t.ops(0)) {
      if (const auto* w = std::get_if<ComputeWork>(&op.work); w && w->kind == ComputeKind::gemm) f += w->flops;
    }
    return f;
  };
  const double one = gemm_flops(build_parallel_trace(small_gpt(1, 1, 1, 1)));
  CHECK(gemm_flops(build_parallel_trace(small_gpt(4, 1, 1, 1))) == Approx(one / 4).epsilon(0.01));
}

TEST_CASE("PP: each stage pair exchanges one activation and one gradient per micro-batch", "[workloads][pp]") {
  const Trace trace = build_parallel_trace(small_gpt(1, 4, 1, 8));
  for (std::uint32_t s = 0; s + 1 < 4; ++s) {
    CHECK(transfers(resolved_ops(trace, s), PeerTransfer::Side::send, s + 1) == 8);
    CHECK(transfers(resolved_ops(trace, s + 1), PeerTransfer::Side::receive, s) == 8);
    CHECK(transfers(resolved_ops(trace, s + 1), PeerTransfer::Side::send, s) == 8);
    CHECK(transfers(resolved_ops(trace, s), PeerTransfer::Side::receive, s + 1) == 8);
  }
}

TEST_CASE("hybrid ranks: TP innermost, then DP, then PP, unless the order says otherwise", "[workloads][hybrid]") {
  WorkloadSpec spec = small_gpt(2, 2, 2, 2);
  const Trace trace = build_parallel_trace(spec);
  REQUIRE(trace.ranks.size() == 8);
  // Stage 0 ranks 0-3 send activations to the same TP/DP coordinates on stage 1.
  CHECK(transfers(resolved_ops(trace, 0), PeerTransfer::Side::send, 4) == 2);
  CHECK(transfers(resolved_ops(trace, 3), PeerTransfer::Side::send, 7) == 2);
  spec.parallel.order = {ParallelDim::pipeline, ParallelDim::data, ParallelDim::tensor};
  const Trace swapped = build_parallel_trace(spec);
  CHECK(transfers(resolved_ops(swapped, 0), PeerTransfer::Side::send, 1) == 2);
}

TEST_CASE("DDP all-reduces gradients once per step, ZeRO-3 gathers weights per layer", "[workloads][zero]") {
  WorkloadSpec spec = small_gpt(1, 1, 4, 2);
  const auto ddp = collectives(resolved_ops(build_parallel_trace(spec), 0), CommDimension::data);
  CHECK(ddp.count(CollectiveOp::all_gather) == 0);
  CHECK(ddp.at(CollectiveOp::all_reduce) >= 1);
  spec.strategy = Strategy::zero1;
  const auto z1 = collectives(resolved_ops(build_parallel_trace(spec), 0), CommDimension::data);
  CHECK(z1.at(CollectiveOp::all_gather) == 1);  // the updated weights
  CHECK(z1.count(CollectiveOp::all_reduce) == 0);
  spec.strategy = Strategy::zero3;
  const auto z3 = collectives(resolved_ops(build_parallel_trace(spec), 0), CommDimension::data);
  const int units = 8 + 2;                                  // layers, embedding, head
  CHECK(z3.at(CollectiveOp::all_gather) == 2 * 2 * units);  // forward and backward, 2 micro-batches
  CHECK(z3.at(CollectiveOp::reduce_scatter) == 2 * units);
}

TEST_CASE("FSDP in a pipeline gathers each unit once a step and reduces its gradient once, at the end",
          "[workloads][zero][fsdp]") {
  WorkloadSpec spec = small_gpt(1, 2, 4, 4);
  spec.strategy = Strategy::fsdp;
  const std::vector<Op> stage0 = resolved_ops(build_parallel_trace(spec), 0);
  const auto c = collectives(stage0, CommDimension::data);
  const int units = 8 / 2 + 1;  // stage 0: its layers and the embedding
  CHECK(c.at(CollectiveOp::all_gather) == units);
  CHECK(c.at(CollectiveOp::reduce_scatter) == units);
  // Every reduce-scatter comes after the stage's last backward kernel.
  std::size_t last_backward = 0, first_reduce = stage0.size();
  for (std::size_t i = 0; i < stage0.size(); ++i) {
    const auto* call = std::get_if<CollectiveCall>(&stage0[i].work);
    if (call && call->op == CollectiveOp::reduce_scatter) first_reduce = std::min(first_reduce, i);
    if (std::holds_alternative<ComputeWork>(stage0[i].work) && stage0[i].phase == OpPhase::backward) last_backward = i;
  }
  CHECK(first_reduce > last_backward);
  // Without a pipeline FSDP re-gathers per micro-batch, forward and backward.
  spec.parallel.pipeline = 1;
  const auto flat = collectives(resolved_ops(build_parallel_trace(spec), 0), CommDimension::data);
  CHECK(flat.at(CollectiveOp::all_gather) == 2 * 4 * (8 + 2));
  CHECK(flat.at(CollectiveOp::reduce_scatter) == 4 * (8 + 2));
}

TEST_CASE("nn.DataParallel funnels outputs and gradients through the master", "[workloads][data_parallel]") {
  WorkloadSpec spec = small_gpt(1, 1, 4, 1);
  spec.strategy = Strategy::data_parallel;
  const Trace trace = build_data_parallel_trace(spec);
  const auto& master = resolved_ops(trace, 0);
  for (std::uint32_t r = 1; r < 4; ++r) {
    CHECK(transfers(master, PeerTransfer::Side::receive, r) == 1);  // logits
    CHECK(transfers(master, PeerTransfer::Side::send, r) == 2);     // inputs, logits' gradients
  }
  const auto c = collectives(master, CommDimension::data);
  CHECK(c.at(CollectiveOp::broadcast) == 1);
  CHECK(c.at(CollectiveOp::reduce) == 1);
  auto has_op = [](const std::vector<Op>& r, const std::string& name) {
    for (const auto& op : r) {
      if (op.name == name) return true;
    }
    return false;
  };
  CHECK(has_op(master, "optimizer.adam"));
  CHECK_FALSE(has_op(resolved_ops(trace, 1), "optimizer.adam"));
  CHECK_FALSE(has_op(resolved_ops(trace, 1), "mb0.cross_entropy"));
}
