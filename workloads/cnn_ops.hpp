#pragma once
// The ops of one forward and one backward pass of a CNN over a micro-batch of
// images, as one data-parallel rank runs them. A convolution is an implicit
// GEMM (cuDNN's default family): forward M = N*H_out*W_out, N = C_out,
// K = C_in*k*k; backward is two more of the same size, the data gradient and
// the weight gradient (none for the first conv's input, as autograd skips it).
// Their bytes are the tensors themselves (input, weights, output), not the
// k*k-times-larger im2col matrix, which implicit GEMM never materialises.
// Batch-norm, ReLU, pooling and the residual add stream whole tensors, so the
// roofline finds them memory-bound; FC layers are GEMMs; biases are fused into
// their conv/GEMM forward, and their gradients are a column sum of dy.
#include <vector>

#include "workloads/cnn_spec.hpp"
#include "workloads/parameter_layout.hpp"
#include "workloads/transformer_ops.hpp"

namespace simctl {

struct CnnPass {
  CnnSpec model;
  std::int64_t micro_batch = 1;  // images in this pass
  DType dtype = DType::fp16;
  DType grad_dtype = DType::fp16;
  double kernel_time_factor = 1.0;
};

std::vector<ModelOp> cnn_forward_ops(const CnnPass& pass);
std::vector<ModelOp> cnn_backward_ops(const CnnPass& pass);
// <layer>.weight then <layer>.bias where present, in layer order (as
// model.parameters() lists them).
std::vector<ParameterTensor> cnn_parameter_tensors(const CnnSpec& model);
// 3 passes x the forward conv and FC FLOPs.
double cnn_training_flops(const CnnSpec& model, double samples);
// Saved for backward: the input and every layer's output except the ReLUs'
// (torchvision's are in place), in elements per sample.
double cnn_saved_elements_per_sample(const CnnSpec& model);

}  // namespace simctl
