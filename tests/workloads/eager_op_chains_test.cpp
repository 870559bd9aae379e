// torchtitan's eager Llama (workloads/eager_op_chains.hpp): its RMSNorm, RoPE,
// SwiGLU and GQA copies run as chains of PyTorch kernels, each read and
// written whole, where a fused or compiled block runs one kernel.
#include <catch2/catch.hpp>
#include <numeric>

#include "tests/workloads/op_named.hpp"
#include "workloads/model_catalogue.hpp"
#include "workloads/transformer_ops.hpp"

using namespace simctl;
using testing::op_named;

namespace eager_op_chains_test_detail {

PassShape llama_8b(bool chains) {
  const auto catalogue = ModelCatalogue::load_file(ModelCatalogue::default_path());
  const TransformerSpec* model = catalogue.find("llama3-8b");
  REQUIRE(model != nullptr);
  PassShape p = whole_model_shape(*model, 1, DType::bf16, DType::bf16);
  p.eager_op_chains = chains;
  return p;
}

// Bytes of every op whose name starts with `prefix` (the fused op, or its chain).
double bytes_under(const std::vector<ModelOp>& ops, const std::string& prefix) {
  double bytes = 0.0;
  for (const ModelOp& op : ops) {
    if (op.name == prefix || op.name.rfind(prefix + ".", 0) == 0) bytes += op.work.memory_bytes;
  }
  return bytes;
}

std::size_t count_under(const std::vector<ModelOp>& ops, const std::string& prefix) {
  std::size_t n = 0;
  for (const ModelOp& op : ops) n += op.name == prefix || op.name.rfind(prefix + ".", 0) == 0;
  return n;
}

}  // namespace eager_op_chains_test_detail

using namespace eager_op_chains_test_detail;

TEST_CASE("eager RMSNorm, RoPE and SwiGLU move their chains' bytes, fused ones once", "[workloads][llama][eager]") {
  const auto fused = forward_ops(llama_8b(false));
  const auto eager = forward_ops(llama_8b(true));
  // RMSNorm: 36 B per element in 8 kernels against 4 B in one.
  CHECK(count_under(fused, "layer0.ln1") == 1);
  CHECK(count_under(eager, "layer0.ln1") == 8);
  CHECK(bytes_under(eager, "layer0.ln1") == Approx(9.0 * bytes_under(fused, "layer0.ln1")));
  // RoPE on Q and K: 20 B per element against 4.
  CHECK(bytes_under(eager, "layer0.rope") == Approx(5.0 * bytes_under(fused, "layer0.rope")));
  // SwiGLU: silu then the product, 10 B per FFN element against 6.
  CHECK(bytes_under(eager, "layer0.swiglu") == Approx(10.0 / 6.0 * bytes_under(fused, "layer0.swiglu")));
  // GQA's repeat_kv copies K and V out to the 32 query heads; the fused path has none.
  CHECK(count_under(fused, "layer0.repeat_kv") == 0);
  CHECK(count_under(eager, "layer0.repeat_kv") == 2);
  CHECK_NOTHROW(op_named(eager, "layer0.attention_out.contiguous"));
}

TEST_CASE("an eager norm's backward chain ends with its weight's gradient", "[workloads][llama][eager]") {
  const auto fused = backward_ops(llama_8b(false));
  const auto eager = backward_ops(llama_8b(true));
  const ModelOp& fused_ln1 = op_named(fused, "layer0.ln1.bwd");
  const ModelOp& last = op_named(eager, "layer0.ln1.bwd.to_fp32.bwd");
  CHECK_FALSE(fused_ln1.grads_ready.empty());
  CHECK(last.grads_ready == fused_ln1.grads_ready);
  CHECK(op_named(eager, "layer0.ln1.bwd.pow.bwd").grads_ready.empty());
  // 76 B per element against 6 (read x and dy, write dx).
  CHECK(bytes_under(eager, "layer0.ln1.bwd") == Approx(76.0 / 6.0 * bytes_under(fused, "layer0.ln1.bwd")));
}
