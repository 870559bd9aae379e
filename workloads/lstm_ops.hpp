#pragma once
// The ops of one forward and one backward pass of an LSTM language model over
// a micro-batch of token sequences, as one data-parallel rank runs them with
// cuDNN's standard (non-persistent) RNN algorithm:
//  - per layer, the input projection of all time steps is one GEMM
//    (batch*seq x input -> 4*hidden, both biases folded in);
//  - then, sequentially over time steps, a recurrent GEMM
//    (batch x hidden -> 4*hidden) and one fused element-wise kernel for the
//    gates (sigmoid, tanh, the cell update), which saves the activated gates;
//  - backward walks the steps in reverse: the fused gate backward and the
//    recurrent data-gradient GEMM (batch x 4*hidden -> hidden) per step, then
//    per layer one weight-gradient GEMM each for W_hh and W_ih over all steps
//    (K = batch*seq), the bias gradient, and the input data-gradient GEMM.
// An embedding gather feeds layer 0; a linear decoder to the vocabulary and
// a softmax cross-entropy close the model. The recurrent GEMMs are small
// (M = batch) and stream the whole W_hh every step, which is what separates
// an LSTM from a CNN on the roofline.
#include <vector>

#include "workloads/lstm_spec.hpp"
#include "workloads/parameter_layout.hpp"
#include "workloads/transformer_ops.hpp"

namespace simctl {

struct LstmPass {
  LstmSpec model;
  std::int64_t micro_batch = 1;  // sequences in this pass
  DType dtype = DType::fp16;
  DType grad_dtype = DType::fp16;
  double kernel_time_factor = 1.0;
};

std::vector<ModelOp> lstm_forward_ops(const LstmPass& pass);
std::vector<ModelOp> lstm_backward_ops(const LstmPass& pass);
// In model.parameters() order of PyTorch's word_language_model RNNModel:
// encoder.weight, then per layer rnn.weight_ih_l<i>, rnn.weight_hh_l<i>,
// rnn.bias_ih_l<i>, rnn.bias_hh_l<i>, then decoder.weight (not when tied)
// and decoder.bias.
std::vector<ParameterTensor> lstm_parameter_tensors(const LstmSpec& model);
// 3 passes x the forward GEMM FLOPs (input projections, recurrent GEMMs,
// decoder): 6 x GEMM weights x tokens.
double lstm_training_flops(const LstmSpec& model, double sequences);
// Saved for backward per sequence, in elements: the embedding output, per
// layer and step the activated gates (4h), the cell and the hidden state,
// and the logits.
double lstm_saved_elements_per_sequence(const LstmSpec& model);

}  // namespace simctl
