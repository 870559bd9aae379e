#include "workloads/fp8_training.hpp"

namespace simctl {

double linear_weight_parameters(const TransformerSpec& m) {
  const auto h = static_cast<double>(m.hidden);
  return h * static_cast<double>(m.qkv_width()) + h * h + h * static_cast<double>(m.mlp_up_width()) +
         static_cast<double>(m.ffn) * h;
}

}  // namespace simctl
