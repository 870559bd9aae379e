#include "workloads/cnn_spec.hpp"

namespace simctl {

std::int64_t CnnLayer::weight_count() const {
  switch (kind) {
    case CnnLayerKind::conv: return out.channels * in.channels * kernel * kernel;
    case CnnLayerKind::batch_norm: return in.channels;  // gamma
    case CnnLayerKind::fc: return in.elements() * out.elements();
    default: return 0;
  }
}

std::int64_t CnnLayer::bias_count() const {
  if (kind == CnnLayerKind::batch_norm) return in.channels;  // beta
  const bool has_bias = bias && (kind == CnnLayerKind::conv || kind == CnnLayerKind::fc);
  return has_bias ? out.channels : 0;
}

std::int64_t CnnSpec::parameter_count() const {
  std::int64_t sum = 0;
  for (const auto& l : layers) sum += l.weight_count() + l.bias_count();
  return sum;
}

std::int64_t window_output_size(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t padding) {
  return (in + 2 * padding - kernel) / stride + 1;
}

}  // namespace simctl
