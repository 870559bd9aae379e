#pragma once
// The ops of one forward and one backward pass of an MLP over a micro-batch
// of samples, as one data-parallel rank runs them: per layer a GEMM, a bias
// add and the activation (none after the last layer), then a softmax
// cross-entropy; backward mirrors it (activation gradient, bias gradient as a
// column sum, weight-gradient GEMM, input-gradient GEMM except for the first
// layer, whose input needs none, as autograd skips it). Each op is a separate
// kernel, so a small MLP is dominated by launch overhead and memory traffic.
#include <vector>

#include "workloads/mlp_spec.hpp"
#include "workloads/parameter_layout.hpp"
#include "workloads/transformer_ops.hpp"

namespace simctl {

struct MlpPass {
  MlpSpec model;
  std::int64_t micro_batch = 1;  // samples in this pass
  DType dtype = DType::bf16;
  DType grad_dtype = DType::bf16;
  double kernel_time_factor = 1.0;
};

std::vector<ModelOp> mlp_forward_ops(const MlpPass& pass);
std::vector<ModelOp> mlp_backward_ops(const MlpPass& pass);
// fc<i>.weight, fc<i>.bias per layer, in model.parameters() order.
std::vector<ParameterTensor> mlp_parameter_tensors(const MlpSpec& model);
// 3 passes x 2 FLOPs per weight per sample (6 N_weights per sample).
double mlp_training_flops(const MlpSpec& model, double samples);

}  // namespace simctl
