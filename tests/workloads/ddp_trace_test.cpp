#include "workloads/ddp_trace.hpp"

#include <catch2/catch.hpp>

#include "workloads/model_flops.hpp"

using namespace simctl;

namespace {

WorkloadSpec gpt_1p3b(std::int64_t data = 8, std::int64_t micro = 8, std::int64_t accum = 1) {
  const auto catalogue = ModelCatalogue::load_file(ModelCatalogue::default_path());
  WorkloadSpec spec;
  spec.model = *catalogue.find("gpt-1.3b");
  spec.parallel.data = data;
  spec.micro_batch = micro;
  spec.grad_accum = accum;
  spec.global_batch = micro * data * accum;
  return spec;
}

const ComputeWork* compute_of(const Op& op) { return std::get_if<ComputeWork>(&op.work); }
const CollectiveCall* collective_of(const Op& op) { return std::get_if<CollectiveCall>(&op.work); }

double flops_where(const std::vector<Op>& rank, OpPhase phase, ComputeKind kind) {
  double sum = 0;
  for (const auto& op : rank) {
    const ComputeWork* w = compute_of(op);
    if (w && op.phase == phase && w->kind == kind) sum += w->flops;
  }
  return sum;
}

std::vector<OpIndex> all_reduces_of(const std::vector<Op>& rank) {
  std::vector<OpIndex> out;
  for (OpIndex i = 0; i < rank.size(); ++i) {
    if (collective_of(rank[i])) out.push_back(i);
  }
  return out;
}

OpIndex last_in_phase(const std::vector<Op>& rank, OpPhase phase) {
  OpIndex last = 0;
  for (OpIndex i = 0; i < rank.size(); ++i) {
    if (rank[i].phase == phase) last = i;
  }
  return last;
}

const Op& find_op(const std::vector<Op>& rank, const std::string& name) {
  for (const auto& op : rank) {
    if (op.name == name) return op;
  }
  FAIL("no op named " << name);
  throw;
}

}  // namespace

TEST_CASE("forward GEMM FLOPs are about 2 * params * tokens", "[workloads][ddp]") {
  const auto spec = gpt_1p3b();
  const Trace trace = build_ddp_trace(spec, 8);
  const double tokens_per_rank = static_cast<double>(spec.micro_batch * spec.model.seq_len);
  const double forward_gemm = flops_where(resolved_ops(trace, 0), OpPhase::forward, ComputeKind::gemm);
  // Excludes attention; the gap is position embeddings, biases and norms,
  // which are parameters without matrix products.
  CHECK(forward_gemm ==
        Approx(2.0 * static_cast<double>(spec.model.parameter_count()) * tokens_per_rank).epsilon(0.03));
}

TEST_CASE("backward doubles GEMM FLOPs and attention takes 2.5x", "[workloads][ddp]") {
  const Trace trace = build_ddp_trace(gpt_1p3b(), 8);
  const auto& rank = resolved_ops(trace, 0);
  CHECK(flops_where(rank, OpPhase::backward, ComputeKind::gemm) ==
        Approx(2.0 * flops_where(rank, OpPhase::forward, ComputeKind::gemm)));
  CHECK(flops_where(rank, OpPhase::backward, ComputeKind::attention) ==
        Approx(2.5 * flops_where(rank, OpPhase::forward, ComputeKind::attention)));
  // Causal FlashAttention: half of 4*b*s^2*h per layer.
  const double b = 8, s = 2048, h = 2048, L = 24;
  CHECK(flops_where(rank, OpPhase::forward, ComputeKind::attention) == Approx(0.5 * 4 * b * s * s * h * L));
}

TEST_CASE("GEMMs carry their shapes and count A, B and C bytes", "[workloads][ddp]") {
  const Trace trace = build_ddp_trace(gpt_1p3b(), 8);
  const double T = 8 * 2048, h = 2048;
  const ComputeWork* qkv = compute_of(find_op(trace.ops(0), "layer0.qkv"));
  REQUIRE(qkv);
  CHECK(qkv->m == 8 * 2048);
  CHECK(qkv->n == 3 * 2048);
  CHECK(qkv->k == 2048);
  CHECK(qkv->memory_bytes == Approx(2 * (T * h + h * 3 * h + T * 3 * h)));
  const ComputeWork* wgrad = compute_of(find_op(trace.ops(0), "layer0.mlp_up.wgrad"));
  REQUIRE(wgrad);
  CHECK(wgrad->m == 2048);
  CHECK(wgrad->n == 4 * 2048);
  CHECK(wgrad->k == 8 * 2048);
}

TEST_CASE("dependencies only point backwards", "[workloads][ddp]") {
  auto spec = gpt_1p3b(4, 2, 3);
  spec.recompute = ActivationRecompute::full;
  const Trace trace = build_ddp_trace(spec, 4);
  for (std::uint32_t r = 0; r < trace.rank_count(); ++r) {
    const auto& rank = trace.ops(r);
    for (OpIndex i = 0; i < rank.size(); ++i) {
      for (OpIndex d : rank[i].deps) CHECK(d < i);
    }
  }
}

TEST_CASE("bucket all-reduces cover every gradient byte once", "[workloads][ddp]") {
  for (const DType grad : {DType::bf16, DType::fp32}) {
    for (const Bytes bucket : {1 * kMiB, 25 * kMiB, 200 * kMiB}) {
      auto spec = gpt_1p3b();
      spec.ddp.grad_dtype = grad;
      spec.ddp.bucket_size_bytes = bucket;
      const Trace trace = build_ddp_trace(spec, 8);
      double bytes = 0;
      for (OpIndex i : all_reduces_of(resolved_ops(trace, 0))) {
        const Op& op = trace.ops(0)[i];
        CHECK(op.stream == Stream::communication);
        CHECK(op.phase == OpPhase::gradient_sync);
        CHECK(collective_of(op)->op == CollectiveOp::all_reduce);
        CHECK(collective_of(op)->group == 0);
        bytes += collective_of(op)->bytes;
      }
      CHECK(bytes == Approx(static_cast<double>(spec.model.parameter_count()) * bytes_per_element(grad)));
    }
  }
}

TEST_CASE("with overlap, all-reduces start during backward", "[workloads][ddp]") {
  const Trace trace = build_ddp_trace(gpt_1p3b(), 8);
  const auto& rank = resolved_ops(trace, 0);
  const auto reduces = all_reduces_of(rank);
  REQUIRE(reduces.size() > 10);  // 1.3B params in bf16 over 25 MiB buckets: ~100 buckets
  const OpIndex last_backward = last_in_phase(rank, OpPhase::backward);
  const Op& first = rank[reduces.front()];
  REQUIRE(first.deps.size() == 1);
  CHECK(first.deps[0] < last_backward);
  CHECK(rank[first.deps[0]].phase == OpPhase::backward);
  // The last bucket holds the token embedding, whose gradient is complete
  // only after the embedding backward, the last backward op.
  CHECK(rank[reduces.back()].deps == std::vector<OpIndex>{last_backward});
}

TEST_CASE("without overlap, every all-reduce waits for the whole backward", "[workloads][ddp]") {
  auto spec = gpt_1p3b();
  spec.ddp.overlap = false;
  const Trace trace = build_ddp_trace(spec, 8);
  const auto& rank = resolved_ops(trace, 0);
  const OpIndex last_backward = last_in_phase(rank, OpPhase::backward);
  for (OpIndex i : all_reduces_of(rank)) {
    CHECK(i > last_backward);
    CHECK(rank[i].deps == std::vector<OpIndex>{last_backward});
  }
}

TEST_CASE("the Adam step follows every all-reduce and ends the step", "[workloads][ddp]") {
  const auto spec = gpt_1p3b();
  const Trace trace = build_ddp_trace(spec, 8);
  const auto& rank = resolved_ops(trace, 0);
  const Op& last = rank.back();
  CHECK(last.phase == OpPhase::optimizer);
  CHECK(last.stream == Stream::compute);
  for (OpIndex i : all_reduces_of(rank)) {
    CHECK(std::find(last.deps.begin(), last.deps.end(), i) != last.deps.end());
  }
  const double params = static_cast<double>(spec.model.parameter_count());
  // fp32 master + m + v read and written, bf16 grad read, bf16 weights written.
  CHECK(compute_of(last)->memory_bytes == Approx(params * (24 + 2 + 2)));
  CHECK(compute_of(last)->flops == Approx(params * kAdamFlopsPerParameter));
}

TEST_CASE("every rank runs the same ops in one all-ranks group", "[workloads][ddp]") {
  const Trace trace = build_ddp_trace(gpt_1p3b(4), 4);
  REQUIRE(trace.ranks.size() == 4);
  REQUIRE(trace.groups.size() == 1);
  CHECK(trace.groups[0] == std::vector<std::uint32_t>{0, 1, 2, 3});
  for (std::uint32_t r = 0; r < trace.rank_count(); ++r) {
    const auto& rank = trace.ops(r);
    REQUIRE(rank.size() == trace.ops(0).size());
    for (std::size_t i = 0; i < rank.size(); ++i) CHECK(rank[i].name == trace.ops(0)[i].name);
  }
}

TEST_CASE("totals count the global batch", "[workloads][ddp]") {
  const auto spec = gpt_1p3b(8, 4, 2);
  const Trace trace = build_ddp_trace(spec, 8);
  CHECK(trace.totals.samples == 64);
  CHECK(trace.totals.tokens == 64 * 2048);
  CHECK(trace.totals.parameters == static_cast<double>(spec.model.parameter_count()));
  CHECK(trace.totals.model_flops == Approx(training_model_flops(spec.model, 64)));
  CHECK(trace.compute_dtype == DType::bf16);
}

TEST_CASE("gradient accumulation repeats passes but syncs once", "[workloads][ddp]") {
  const Trace one = build_ddp_trace(gpt_1p3b(8, 4, 1), 8);
  const Trace three = build_ddp_trace(gpt_1p3b(8, 4, 3), 8);
  const auto& rank = resolved_ops(three, 0);
  CHECK(flops_where(rank, OpPhase::forward, ComputeKind::gemm) ==
        Approx(3 * flops_where(resolved_ops(one, 0), OpPhase::forward, ComputeKind::gemm)));
  CHECK(all_reduces_of(rank).size() == all_reduces_of(resolved_ops(one, 0)).size());
  // No all-reduce before the last micro-batch's forward pass.
  const OpIndex last_forward = last_in_phase(rank, OpPhase::forward);
  CHECK(all_reduces_of(rank).front() > last_forward);
  CHECK(find_op(rank, "mb2.layer0.qkv").phase == OpPhase::forward);
}

TEST_CASE("full recompute re-runs each block's forward inside backward", "[workloads][ddp]") {
  auto spec = gpt_1p3b();
  const Trace plain = build_ddp_trace(spec, 8);
  spec.recompute = ActivationRecompute::full;
  const Trace recompute = build_ddp_trace(spec, 8);
  const double fwd = flops_where(resolved_ops(plain, 0), OpPhase::forward, ComputeKind::gemm);
  const double lm_head = compute_of(find_op(resolved_ops(plain, 0), "lm_head"))->flops;
  CHECK(flops_where(resolved_ops(recompute, 0), OpPhase::backward, ComputeKind::gemm) ==
        Approx(flops_where(resolved_ops(plain, 0), OpPhase::backward, ComputeKind::gemm) + fwd - lm_head));
  CHECK(recompute.totals.model_flops == plain.totals.model_flops);
}

TEST_CASE("a GPU count that differs from parallel.data is refused", "[workloads][ddp]") {
  CHECK_THROWS_AS(build_ddp_trace(gpt_1p3b(8), 4), std::invalid_argument);
}
