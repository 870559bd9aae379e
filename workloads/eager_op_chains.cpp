#include "workloads/eager_op_chains.hpp"

#include <span>

#include "workloads/op_costs.hpp"

namespace simctl {
namespace eager_op_chains_detail {

// One kernel of a chain: the bytes it reads and writes per element of the
// tensor the chain works over (bf16 2 B, fp32 4 B).
struct ChainKernel {
  const char* name;
  double bytes_per_element;
};

// x.float() 2+4, pow 4+4, mean reads 4, + eps and rsqrt over one value per
// row, x * r 4+4, .type_as 4+2, * weight 2+2: 36 B against a fused kernel's 4.
constexpr ChainKernel kRmsNormForward[] = {{"to_fp32", 6}, {"pow", 8}, {"mean", 4},           {"add_eps", 0},
                                           {"rsqrt", 0},   {"mul", 8}, {"to_input_dtype", 6}, {"mul_weight", 4}};
// Autograd, last op first: the weight's gradient (g * out, summed over rows)
// and g * weight, the cast back to fp32, x * r's two gradients (g * r, and
// (g * x) summed over the row), the mean's expansion, pow's 2 * x * g, the
// sum of the two paths, and the cast to the input dtype: 76 B against 6.
constexpr ChainKernel kRmsNormBackward[] = {{"mul_weight.bwd", 4}, {"weight_grad", 8}, {"to_input_dtype.bwd", 6},
                                            {"mul.bwd_x", 8},      {"mul.bwd_r", 16},  {"mean.bwd", 4},
                                            {"pow.bwd", 12},       {"add_grads", 12},  {"to_fp32.bwd", 6}};
// Per tensor (Q, then K): cast to fp32, the complex multiply, cast back: 20 B
// against 4; backward the same three in reverse.
constexpr ChainKernel kRopeForward[] = {{"to_fp32", 6}, {"complex_mul", 8}, {"to_input_dtype", 6}};
constexpr ChainKernel kRopeBackward[] = {{"to_input_dtype.bwd", 6}, {"complex_mul.bwd", 8}, {"to_fp32.bwd", 6}};
// Over the FFN width: silu(gate) 2+2, times up 4+2: 10 B against 6.
// Backward: g * up and g * silu(gate) 4+2 each, then silu's 2+2+2: 18 against 10.
constexpr ChainKernel kSwigluForward[] = {{"silu", 4}, {"mul", 6}};
constexpr ChainKernel kSwigluBackward[] = {{"mul.bwd_up", 6}, {"mul.bwd_gate", 6}, {"silu.bwd", 6}};

void append_chain(const std::string& name, OpPhase phase, double elements, std::span<const ChainKernel> kernels,
                  std::vector<std::size_t> grads, OpList& out) {
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    // Bytes as bf16 tensors touched: streaming_work prices elements x tensors x 2 B.
    const ComputeWork work =
        streaming_work(ComputeKind::elementwise, DType::bf16, elements, 1.0, kernels[i].bytes_per_element / 2.0);
    const bool last = i + 1 == kernels.size();
    out.compute(name + "." + kernels[i].name, phase, work, last ? std::move(grads) : std::vector<std::size_t>{});
  }
}

double query_elements(const PassGeometry& g) { return g.tokens() * static_cast<double>(g.local_hidden()); }
double kv_elements(const PassGeometry& g) { return g.tokens() * static_cast<double>(g.local_kv_width()); }

}  // namespace eager_op_chains_detail

using namespace eager_op_chains_detail;

bool runs_eager_op_chains(const PassGeometry& g) { return g.p.eager_op_chains; }

void append_rms_norm_forward_chain(const PassGeometry& g, const std::string& name, OpPhase phase, OpList& out) {
  append_chain(name, phase, g.sequence_hidden_elements(), kRmsNormForward, {}, out);
}

void append_rms_norm_backward_chain(const PassGeometry& g, const std::string& name, std::vector<std::size_t> grads,
                                    OpList& out) {
  append_chain(name, OpPhase::backward, g.sequence_hidden_elements(), kRmsNormBackward, std::move(grads), out);
}

void append_rope_chain(const PassGeometry& g, const std::string& name, OpPhase phase, bool backward, OpList& out) {
  const std::span<const ChainKernel> kernels =
      backward ? std::span<const ChainKernel>(kRopeBackward) : std::span<const ChainKernel>(kRopeForward);
  append_chain(name + ".q", phase, query_elements(g), kernels, {}, out);
  append_chain(name + ".k", phase, kv_elements(g), kernels, {}, out);
}

void append_swiglu_chain(const PassGeometry& g, const std::string& name, OpPhase phase, bool backward, OpList& out) {
  const double elements = g.tokens() * static_cast<double>(g.local_ffn());
  const std::span<const ChainKernel> kernels =
      backward ? std::span<const ChainKernel>(kSwigluBackward) : std::span<const ChainKernel>(kSwigluForward);
  append_chain(name, phase, elements, kernels, {}, out);
}

void append_repeat_kv(const PassGeometry& g, const std::string& at, OpPhase phase, bool backward, OpList& out) {
  const auto& m = g.p.model;
  if (!runs_eager_op_chains(g) || m.kv_heads >= m.heads || g.p.attention == AttentionKernel::unfused) return;
  // Read K (or V) at its width, write it at the query heads' width; the
  // backward sums the copies back: the same bytes.
  const double q = query_elements(g);
  const double bytes_per_query_element = 2.0 + 2.0 * kv_elements(g) / q;
  const std::string suffix = backward ? ".bwd" : "";
  for (const char* tensor : {"k", "v"}) {
    out.compute(at + "repeat_kv." + tensor + suffix, phase,
                streaming_work(ComputeKind::elementwise, DType::bf16, q, 0.0, bytes_per_query_element / 2.0));
  }
}

void append_attention_output_copy(const PassGeometry& g, const std::string& name, OpPhase phase, OpList& out) {
  if (!runs_eager_op_chains(g) || g.p.attention == AttentionKernel::unfused) return;
  // One copy, read 2 B and write 2 B per element.
  out.compute(name, phase, streaming_work(ComputeKind::elementwise, DType::bf16, query_elements(g), 0.0, 2.0));
}

}  // namespace simctl
