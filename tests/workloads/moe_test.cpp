// A Mixtral-style mixture of experts: its parameter counts, the all-to-alls
// and groups of expert parallelism, where expert gradients are summed, model
// FLOPs and memory per rank.
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>

#include "memory_items.hpp"
#include "workloads/memory_estimate.hpp"
#include "workloads/model_catalogue.hpp"
#include "workloads/model_flops.hpp"
#include "workloads/parallel_trace.hpp"
#include "workloads/parameter_layout.hpp"

using namespace simctl;
using simctl::testing::bytes_of;

namespace {

TransformerSpec mixtral() {
  const auto catalogue = ModelCatalogue::load_file(ModelCatalogue::default_path());
  const TransformerSpec* found = catalogue.find("mixtral-8x7b");
  REQUIRE(found != nullptr);
  return *found;
}

// 4 Llama-style blocks of hidden 512 with 8 SwiGLU experts of width 1024.
TransformerSpec small_moe(std::int64_t top_k) {
  TransformerSpec m{"small-moe", "", 4, 512, 8, 8, 1024, 1000, 256, true};
  m.norm = NormKind::rms_norm;
  m.position = PositionKind::rope;
  m.linear_bias = false;
  m.tied_embeddings = false;
  m.experts = 8;
  m.experts_per_token = top_k;
  return m;
}

constexpr double kExpertParams = 3.0 * 512 * 1024;  // gate, up and down of one expert

WorkloadSpec moe_plan(std::int64_t data, std::int64_t expert, std::int64_t tensor = 1, std::int64_t top_k = 2) {
  WorkloadSpec spec;
  spec.model = small_moe(top_k);
  spec.parallel.data = data;
  spec.parallel.expert = expert;
  spec.parallel.tensor = tensor;
  spec.parallel.sequence = tensor > 1;
  spec.micro_batch = 2;
  spec.grad_accum = 3;
  spec.global_batch = 2 * data * 3;
  return spec;
}

struct Collective {
  std::string name;
  OpPhase phase;
  CollectiveCall call;
};

std::vector<Collective> collectives(const Trace& trace, std::uint32_t rank, CommDimension dim) {
  std::vector<Collective> out;
  for (const auto& op : resolved_ops(trace, rank)) {
    if (const auto* c = std::get_if<CollectiveCall>(&op.work); c && c->dimension == dim) {
      out.push_back({op.name, op.phase, *c});
    }
  }
  return out;
}

double expert_gemm_flops(const Trace& trace) {
  double sum = 0.0;
  for (const auto& op : trace.ops(0)) {
    const auto* w = std::get_if<ComputeWork>(&op.work);
    if (w != nullptr && op.name.find("experts.fc") != std::string::npos) sum += w->flops;
  }
  return sum;
}

}  // namespace

TEST_CASE("mixtral-8x7b has the 46.7 B parameters of its paper, 12.9 B active", "[workloads][moe]") {
  // By hand (HF config.json): h 4096, 32 layers, 32 heads of 128, 8 KV heads,
  // 8 SwiGLU experts of 14336, vocab 32000, RMSNorm, no biases, untied head:
  //   per layer: attention  QKV 4096*(4096 + 2*1024) = 25,165,824
  //                         out 4096*4096            = 16,777,216
  //              2 RMSNorms 2*4096                   =      8,192
  //              router     4096*8                   =     32,768
  //              experts    8 * 3*4096*14336         = 1,409,286,144
  //              sum                                 = 1,451,270,144, x32 = 46,440,644,608
  //   token embedding and LM head 2 * 32000*4096     =    262,144,000
  //   final RMSNorm                                  =          4,096
  //   total                                          = 46,702,792,704
  // Active: less the 6 experts a token skips, 32 * 6 * 176,160,768
  //   = 33,822,867,456, leaves 12,879,925,248.
  const TransformerSpec m = mixtral();
  CHECK(m.expert_parameters() == 176'160'768);
  CHECK(m.layer_parameters() == 1'451'270'144);
  CHECK(m.parameter_count() == 46'702'792'704);
  CHECK(m.active_parameter_count() == 12'879'925'248);
  CHECK(std::round(static_cast<double>(m.parameter_count()) / 1e8) / 10.0 == 46.7);
  CHECK(std::round(static_cast<double>(m.active_parameter_count()) / 1e8) / 10.0 == 12.9);
  // The parameter tensors (router, stacked expert weights) add up alike.
  const auto tensors = parameter_tensors(m);
  const std::int64_t sum = std::accumulate(tensors.begin(), tensors.end(), std::int64_t{0},
                                           [](std::int64_t a, const ParameterTensor& t) { return a + t.elements; });
  CHECK(sum == m.parameter_count());
  CHECK(tensors[block_tensor_index(m, 0, BlockTensor::router_weight)].elements == 4096 * 8);
  CHECK_THROWS(block_tensor_index(m, 0, BlockTensor::mlp_up_weight));  // no dense MLP
}

TEST_CASE("model FLOPs count the experts a token is routed to, not all of them", "[workloads][moe]") {
  const double per_sequence_k1 = forward_model_flops_per_sequence(small_moe(1));
  const double per_sequence_k2 = forward_model_flops_per_sequence(small_moe(2));
  // One more expert per token: 2 FLOPs per weight of one expert, per token,
  // per layer.
  CHECK(per_sequence_k2 - per_sequence_k1 == Approx(2.0 * kExpertParams * 256 * 4));
  // Top-1 over 8 experts costs what a dense MLP of the expert's width does,
  // plus the router's hidden x experts product.
  TransformerSpec dense = small_moe(1);
  dense.experts = 0;
  dense.experts_per_token = 0;
  const double router = 2.0 * 512 * 8 * 256 * 4;
  CHECK(per_sequence_k1 - forward_model_flops_per_sequence(dense) == Approx(router));
  // And the ranks' expert GEMMs do twice the work with top-2 as with top-1.
  const double k1 = expert_gemm_flops(build_parallel_trace(moe_plan(8, 4, 1, 1)));
  const double k2 = expert_gemm_flops(build_parallel_trace(moe_plan(8, 4, 1, 2)));
  CHECK(k1 > 0.0);
  CHECK(k2 == Approx(2.0 * k1));
}

TEST_CASE("each MoE layer dispatches and combines over its EP group, twice each way", "[workloads][moe]") {
  const WorkloadSpec spec = moe_plan(8, 4);
  const Trace trace = build_parallel_trace(spec);
  REQUIRE(trace.rank_count() == 8);
  CHECK(trace.programs.size() == 1);  // balanced routing: every rank runs the same ops
  // Rank 5 sits at DP coordinate 5: EP groups are DP ranks {0-3} and {4-7}.
  const auto all_to_alls = collectives(trace, 5, CommDimension::expert);
  int forward = 0, backward = 0;
  for (const auto& c : all_to_alls) {
    CHECK(c.call.op == CollectiveOp::all_to_all);
    CHECK(trace.groups[c.call.group] == std::vector<std::uint32_t>{4, 5, 6, 7});
    // Every token's 2 copies of its hidden vector in bf16 (nccl-tests counts
    // the rank's whole buffer): 2 sequences x 256 tokens x 2 x 512 x 2 B.
    CHECK(c.call.bytes == 2.0 * 256 * 2 * 512 * 2);
    (c.phase == OpPhase::forward ? forward : backward) += 1;
  }
  // 4 layers x 3 micro-batches, dispatch and combine each.
  CHECK(forward == 4 * 3 * 2);
  CHECK(backward == 4 * 3 * 2);
  // With EP 1 the experts are all local: no all-to-all at all.
  CHECK(collectives(build_parallel_trace(moe_plan(8, 1)), 5, CommDimension::expert).empty());
}

TEST_CASE("expert gradients are summed over the ranks holding the same experts", "[workloads][moe]") {
  const WorkloadSpec spec = moe_plan(8, 4);
  const Trace trace = build_parallel_trace(spec);
  double expert_bytes = 0.0, dense_bytes = 0.0;
  for (const auto& c : collectives(trace, 5, CommDimension::data)) {
    if (c.phase != OpPhase::gradient_sync) continue;
    CHECK(c.call.op == CollectiveOp::all_reduce);
    const auto& members = trace.groups[c.call.group];
    if (c.name.rfind("experts.", 0) == 0) {
      // DP coordinate 5 holds the same experts as DP coordinate 1.
      CHECK(members == std::vector<std::uint32_t>{1, 5});
      expert_bytes += c.call.bytes;
    } else {
      CHECK(members.size() == 8);
      dense_bytes += c.call.bytes;
    }
  }
  // bf16 gradients: 8 / 4 = 2 experts in each of 4 layers; everything else
  // (the model less its 4 x 8 experts) on the full DP group.
  CHECK(expert_bytes == Approx(4 * 2 * kExpertParams * 2));
  const double dense = static_cast<double>(spec.model.parameter_count()) - 4 * 8 * kExpertParams;
  CHECK(dense_bytes == Approx(dense * 2));
}

TEST_CASE("with TP and SP the dispatch moves each rank's sequence shard", "[workloads][moe]") {
  // Ranks number tensor first: rank = t + 2 * d. Rank 3 is (t 1, d 1).
  const Trace trace = build_parallel_trace(moe_plan(4, 2, 2));
  REQUIRE(trace.rank_count() == 8);
  const auto all_to_alls = collectives(trace, 3, CommDimension::expert);
  REQUIRE_FALSE(all_to_alls.empty());
  // Same TP coordinate, DP coordinates 0 and 1.
  CHECK(trace.groups[all_to_alls.front().call.group] == std::vector<std::uint32_t>{1, 3});
  CHECK(all_to_alls.front().call.bytes == 2.0 * 256 / 2 * 2 * 512 * 2);
  for (const auto& c : collectives(trace, 3, CommDimension::data)) {
    if (c.name.rfind("experts.", 0) == 0) CHECK(trace.groups[c.call.group] == std::vector<std::uint32_t>{3, 7});
  }
}

TEST_CASE("expert parallelism divides the experts' state, not the activations", "[workloads][moe][memory]") {
  WorkloadSpec one = moe_plan(8, 1);
  WorkloadSpec four = moe_plan(8, 4);
  one.strategy = four.strategy = Strategy::zero1;
  const StageMemory a = estimate_memory(one).front();
  const StageMemory b = estimate_memory(four).front();
  // Each rank drops 8 - 2 = 6 experts per layer: 2 bytes each of weights
  // and of gradients.
  const double dropped = 4 * 6 * kExpertParams;
  CHECK(bytes_of(a, "weights") - bytes_of(b, "weights") == Approx(dropped * 2));
  CHECK(bytes_of(a, "gradients") - bytes_of(b, "gradients") == Approx(dropped * 2));
  // ZeRO-1: Adam's 12 B per parameter over the ranks holding it, dense over
  // all 8, the rank's 2 experts per layer over the 8 / 4 = 2 holding them.
  const double dense = static_cast<double>(four.model.parameter_count()) - 4 * 8 * kExpertParams;
  CHECK(bytes_of(b, "optimizer_states") == Approx(12.0 * (dense / 8 + 4 * 2 * kExpertParams / 2)));
  CHECK(bytes_of(a, "activations") == bytes_of(b, "activations"));
  // Top-2 keeps the experts' tensors of two copies per token: more than top-1.
  CHECK(layer_activation_bytes(moe_plan(8, 4, 1, 2)) > layer_activation_bytes(moe_plan(8, 4, 1, 1)));
}
