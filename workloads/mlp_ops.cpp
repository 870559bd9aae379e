#include "workloads/mlp_ops.hpp"

#include <string>

#include "workloads/op_costs.hpp"

namespace simctl {
namespace {

constexpr double kBiasFlops = 1.0;

double forward_activation_flops(Activation a) {
  switch (a) {
    case Activation::relu: return 1.0;
    case Activation::gelu: return 8.0;  // tanh approximation
    case Activation::tanh: return 4.0;
  }
  return 1.0;
}

std::string layer_name(std::int64_t layer) { return "fc" + std::to_string(layer); }

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::relu: return "relu";
    case Activation::gelu: return "gelu";
    case Activation::tanh: return "tanh";
  }
  return "act";
}

// An element-wise kernel over a layer's [micro_batch, out] output.
ComputeWork output_stream(const MlpPass& p, std::int64_t layer, double flops, double tensors) {
  const double elements = static_cast<double>(p.micro_batch * p.model.out_features(layer));
  return streaming_work(ComputeKind::elementwise, p.dtype, elements, flops, tensors);
}

ComputeWork scaled(ComputeWork w, const MlpPass& p) { return with_time_factor(w, p.kernel_time_factor); }

std::size_t weight_index(std::int64_t layer) { return static_cast<std::size_t>(2 * layer); }

}  // namespace

std::vector<ModelOp> mlp_forward_ops(const MlpPass& p) {
  std::vector<ModelOp> ops;
  const auto& m = p.model;
  const double act_flops = forward_activation_flops(m.activation);
  for (std::int64_t l = 0; l < m.layers(); ++l) {
    const std::string at = layer_name(l);
    const ComputeWork gemm =
        gemm_work(p.micro_batch, m.out_features(l), m.in_features(l), p.dtype, bytes_per_element(p.dtype));
    ops.push_back({at, OpPhase::forward, scaled(gemm, p), {}, std::nullopt});
    ops.push_back({at + ".bias", OpPhase::forward, scaled(output_stream(p, l, kBiasFlops, 2.0), p), {}, std::nullopt});
    if (l + 1 == m.layers()) break;
    ops.push_back({at + "." + activation_name(m.activation),
                   OpPhase::forward,
                   scaled(output_stream(p, l, act_flops, 2.0), p),
                   {},
                   std::nullopt});
  }
  ComputeWork loss = output_stream(p, m.layers() - 1, kLossForwardFlops, 2.0);
  loss.kind = ComputeKind::softmax;
  ops.push_back({"cross_entropy", OpPhase::forward, scaled(loss, p), {}, std::nullopt});
  return ops;
}

std::vector<ModelOp> mlp_backward_ops(const MlpPass& p) {
  std::vector<ModelOp> ops;
  const auto& m = p.model;
  const OpPhase bw = OpPhase::backward;
  ComputeWork loss = output_stream(p, m.layers() - 1, kLossBackwardFlops, 2.0);
  loss.kind = ComputeKind::softmax;
  ops.push_back({"cross_entropy.bwd", bw, scaled(loss, p), {}, std::nullopt});
  for (std::int64_t l = m.layers() - 1; l >= 0; --l) {
    const std::string at = layer_name(l);
    const std::int64_t in = m.in_features(l), out = m.out_features(l);
    if (l + 1 < m.layers()) {  // reads the saved input and dy, writes dx
      ops.push_back({at + "." + activation_name(m.activation) + ".bwd",
                     bw,
                     scaled(output_stream(p, l, 1.0, 3.0), p),
                     {},
                     std::nullopt});
    }
    // Column sum of dy into the bias gradient: reads dy once.
    ops.push_back(
        {at + ".bias.grad", bw, scaled(output_stream(p, l, kBiasFlops, 1.0), p), {weight_index(l) + 1}, std::nullopt});
    const ComputeWork wgrad = gemm_work(in, out, p.micro_batch, p.dtype, bytes_per_element(p.grad_dtype));
    ops.push_back({at + ".wgrad", bw, scaled(wgrad, p), {weight_index(l)}, std::nullopt});
    if (l == 0) break;
    const ComputeWork dgrad = gemm_work(p.micro_batch, in, out, p.dtype, bytes_per_element(p.dtype));
    ops.push_back({at + ".dgrad", bw, scaled(dgrad, p), {}, std::nullopt});
  }
  return ops;
}

std::vector<ParameterTensor> mlp_parameter_tensors(const MlpSpec& m) {
  std::vector<ParameterTensor> out;
  for (std::int64_t l = 0; l < m.layers(); ++l) {
    out.push_back({layer_name(l) + ".weight", m.in_features(l) * m.out_features(l)});
    out.push_back({layer_name(l) + ".bias", m.out_features(l)});
  }
  return out;
}

double mlp_training_flops(const MlpSpec& m, double samples) {
  double weights = 0.0;
  for (std::int64_t l = 0; l < m.layers(); ++l) weights += static_cast<double>(m.in_features(l) * m.out_features(l));
  return 6.0 * weights * samples;
}

}  // namespace simctl
