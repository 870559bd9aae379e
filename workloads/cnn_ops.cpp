#include "workloads/cnn_ops.hpp"

#include <algorithm>

#include "workloads/op_costs.hpp"

namespace simctl {
namespace {

constexpr double kBnForwardFlops = 5.0;  // mean, variance, normalise, scale, shift
constexpr double kBnBackwardFlops = 8.0;
// Training BN reads x for the batch statistics, then reads it again and
// writes y; backward reduces over dy and x, then reads both again to write dx.
constexpr double kBnForwardTensors = 3.0;
constexpr double kBnBackwardTensors = 5.0;
constexpr double kMaxPoolIndexBytes = 8.0;  // PyTorch keeps int64 argmax indices

struct CnnCtx {
  const CnnPass& p;
  double bpe() const { return bytes_per_element(p.dtype); }
  double n() const { return static_cast<double>(p.micro_batch); }
  ComputeWork scaled(ComputeWork w) const { return with_time_factor(w, p.kernel_time_factor); }
};

std::int64_t patch(const CnnLayer& l) { return l.in.channels * l.kernel * l.kernel; }
std::int64_t pixels(const CnnCtx& c, const ImageShape& s) { return c.p.micro_batch * s.height * s.width; }

// The implicit GEMM's shape with its real tensor traffic.
ComputeWork conv_gemm(const CnnCtx& c, std::int64_t m, std::int64_t n, std::int64_t k, double bytes) {
  ComputeWork w = gemm_work(m, n, k, c.p.dtype, bytes_per_element(c.p.dtype));
  w.memory_bytes = bytes;
  return c.scaled(w);
}

double tensor_bytes(const CnnCtx& c, const ImageShape& s) {
  return c.n() * static_cast<double>(s.elements()) * c.bpe();
}
double weight_bytes(const CnnLayer& l, double bpe) { return static_cast<double>(l.weight_count()) * bpe; }

ComputeWork stream(const CnnCtx& c, ComputeKind kind, const ImageShape& s, double flops, double tensors) {
  return c.scaled(streaming_work(kind, c.p.dtype, c.n() * static_cast<double>(s.elements()), flops, tensors));
}

ComputeWork pool_work(const CnnCtx& c, const CnnLayer& l) {
  ComputeWork w;
  w.kind = ComputeKind::elementwise;
  w.dtype = c.p.dtype;
  const double out = c.n() * static_cast<double>(l.out.elements());
  w.flops = out * static_cast<double>(l.kernel * l.kernel);
  w.memory_bytes = tensor_bytes(c, l.in) + tensor_bytes(c, l.out);
  if (l.kind == CnnLayerKind::max_pool) w.memory_bytes += out * kMaxPoolIndexBytes;
  return c.scaled(w);
}

ComputeWork loss_work(const CnnCtx& c, const CnnLayer& last, double flops) {
  ComputeWork w = stream(c, ComputeKind::softmax, last.out, flops, 2.0);
  return w;
}

ComputeWork forward_work(const CnnCtx& c, const CnnLayer& l) {
  switch (l.kind) {
    case CnnLayerKind::conv:
      return conv_gemm(c, pixels(c, l.out), l.out.channels, patch(l),
                       tensor_bytes(c, l.in) + weight_bytes(l, c.bpe()) + tensor_bytes(c, l.out));
    case CnnLayerKind::fc:
      return c.scaled(gemm_work(c.p.micro_batch, l.out.elements(), l.in.elements(), c.p.dtype, c.bpe()));
    case CnnLayerKind::batch_norm: return stream(c, ComputeKind::norm, l.out, kBnForwardFlops, kBnForwardTensors);
    case CnnLayerKind::relu: return stream(c, ComputeKind::elementwise, l.out, 1.0, 2.0);
    case CnnLayerKind::add: return stream(c, ComputeKind::elementwise, l.out, 1.0, 3.0);
    case CnnLayerKind::max_pool:
    case CnnLayerKind::avg_pool: return pool_work(c, l);
  }
  return {};
}

// A conv weight gradient reduces over every output pixel of the batch: tiny
// M = C_out and N = C_in*k*k against a K of millions. cuDNN splits K so that
// the tiles fill the GPU, then sums the fp32 partials; without the split the
// roofline would run a 64x64 output on one SM. Aim for this many output tiles
// of 128x128 (about two waves on a 108- to 132-SM GPU), each split at least
// kMinSplitDepth deep.
constexpr std::int64_t kSplitKTargetTiles = 256;
constexpr std::int64_t kMinSplitDepth = 4096;
constexpr double kPartialSumBytes = 4.0;  // fp32, written once and read once

ComputeWork split_k(ComputeWork w) {
  const std::int64_t tiles = ((w.m + 127) / 128) * ((w.n + 127) / 128);
  const std::int64_t splits =
      std::clamp<std::int64_t>(kSplitKTargetTiles / tiles, 1, std::max<std::int64_t>(1, w.k / kMinSplitDepth));
  if (splits == 1) return w;
  w.batch = splits;
  w.k = (w.k + splits - 1) / splits;
  w.memory_bytes += 2.0 * kPartialSumBytes * static_cast<double>(splits) * static_cast<double>(w.m * w.n);
  return w;
}

// Index of each layer's first parameter tensor in cnn_parameter_tensors.
std::vector<std::size_t> first_tensor(const CnnSpec& m) {
  std::vector<std::size_t> out;
  std::size_t next = 0;
  for (const auto& l : m.layers) {
    out.push_back(next);
    next += (l.weight_count() > 0 ? 1 : 0) + (l.bias_count() > 0 ? 1 : 0);
  }
  return out;
}

void add_gemm_backward(const CnnCtx& c, const CnnLayer& l, std::size_t w, bool needs_dgrad, std::vector<ModelOp>& ops) {
  const OpPhase bw = OpPhase::backward;
  const double gbpe = bytes_per_element(c.p.grad_dtype);
  if (l.bias)
    ops.push_back({l.name + ".bias.grad", bw, stream(c, ComputeKind::elementwise, l.out, 1.0, 1.0), {w + 1}, {}});
  if (l.kind == CnnLayerKind::fc) {
    ops.push_back(
        {l.name + ".wgrad",
         bw,
         c.scaled(gemm_work(l.in.elements(), l.out.elements(), c.p.micro_batch, c.p.dtype, static_cast<int>(gbpe))),
         {w},
         {}});
    if (needs_dgrad) {
      ops.push_back({l.name + ".dgrad",
                     bw,
                     c.scaled(gemm_work(c.p.micro_batch, l.in.elements(), l.out.elements(), c.p.dtype,
                                        static_cast<int>(c.bpe()))),
                     {},
                     {}});
    }
    return;
  }
  // dW[C_out, C_in*k*k] = dY^T x patches(X): reads x and dy, writes dW.
  const double wgrad_bytes = tensor_bytes(c, l.in) + tensor_bytes(c, l.out) + weight_bytes(l, gbpe);
  ops.push_back(
      {l.name + ".wgrad", bw, split_k(conv_gemm(c, l.out.channels, patch(l), pixels(c, l.out), wgrad_bytes)), {w}, {}});
  if (!needs_dgrad) return;
  // dX as a GEMM over the same MACs: reads dy and W, writes dx.
  const double dgrad_bytes = tensor_bytes(c, l.out) + weight_bytes(l, c.bpe()) + tensor_bytes(c, l.in);
  const std::int64_t transposed_patch = l.out.channels * l.kernel * l.kernel;
  ops.push_back(
      {l.name + ".dgrad", bw, conv_gemm(c, pixels(c, l.out), l.in.channels, transposed_patch, dgrad_bytes), {}, {}});
}

ModelOp backward_stream_op(const CnnCtx& c, const CnnLayer& l, std::size_t w) {
  const OpPhase bw = OpPhase::backward;
  switch (l.kind) {
    case CnnLayerKind::batch_norm:
      return {l.name + ".bwd",
              bw,
              stream(c, ComputeKind::norm, l.out, kBnBackwardFlops, kBnBackwardTensors),
              {w, w + 1},
              {}};
    case CnnLayerKind::relu:  // reads y and dy, writes dx
      return {l.name + ".bwd", bw, stream(c, ComputeKind::elementwise, l.out, 1.0, 3.0), {}, {}};
    case CnnLayerKind::add:  // sums the two branches' gradients where they fork
      return {l.name + ".bwd", bw, stream(c, ComputeKind::elementwise, l.out, 1.0, 3.0), {}, {}};
    default: return {l.name + ".bwd", bw, pool_work(c, l), {}, {}};
  }
}

}  // namespace

std::vector<ModelOp> cnn_forward_ops(const CnnPass& p) {
  const CnnCtx c{p};
  std::vector<ModelOp> ops;
  for (const auto& l : p.model.layers) ops.push_back({l.name, OpPhase::forward, forward_work(c, l), {}, {}});
  ops.push_back({"cross_entropy", OpPhase::forward, loss_work(c, p.model.layers.back(), kLossForwardFlops), {}, {}});
  return ops;
}

std::vector<ModelOp> cnn_backward_ops(const CnnPass& p) {
  const CnnCtx c{p};
  const auto& layers = p.model.layers;
  const auto first = first_tensor(p.model);
  std::vector<ModelOp> ops;
  ops.push_back({"cross_entropy.bwd", OpPhase::backward, loss_work(c, layers.back(), kLossBackwardFlops), {}, {}});
  for (std::size_t i = layers.size(); i-- > 0;) {
    const CnnLayer& l = layers[i];
    if (l.kind == CnnLayerKind::conv || l.kind == CnnLayerKind::fc) {
      add_gemm_backward(c, l, first[i], i > 0, ops);
    } else {
      ops.push_back(backward_stream_op(c, l, first[i]));
    }
  }
  return ops;
}

std::vector<ParameterTensor> cnn_parameter_tensors(const CnnSpec& m) {
  std::vector<ParameterTensor> out;
  for (const auto& l : m.layers) {
    if (l.weight_count() > 0) out.push_back({l.name + ".weight", l.weight_count()});
    if (l.bias_count() > 0) out.push_back({l.name + ".bias", l.bias_count()});
  }
  return out;
}

double cnn_training_flops(const CnnSpec& m, double samples) {
  const CnnPass one{m, 1, DType::fp16, DType::fp16, 1.0};
  const CnnCtx c{one};
  double forward = 0.0;
  for (const auto& l : m.layers) {
    if (l.kind == CnnLayerKind::conv || l.kind == CnnLayerKind::fc) forward += forward_work(c, l).flops;
  }
  return 3.0 * forward * samples;
}

double cnn_saved_elements_per_sample(const CnnSpec& m) {
  double sum = static_cast<double>(m.input.elements());
  for (const auto& l : m.layers) {
    if (l.kind != CnnLayerKind::relu) sum += static_cast<double>(l.out.elements());
  }
  return sum;
}

}  // namespace simctl
