#include "workloads/finetune.hpp"

namespace simctl {

double adapter_parameters(const TransformerSpec& m, const Finetune& f, std::int64_t tensor) {
  const double r = static_cast<double>(f.rank), t = static_cast<double>(tensor);
  const auto h = static_cast<double>(m.hidden);
  double sum = 0.0;
  if (f.targets_linear(LoraTarget::qkv)) sum += r * (h + static_cast<double>(m.qkv_width()) / t);
  if (f.targets_linear(LoraTarget::proj)) sum += r * (h / t + h);
  if (f.targets_linear(LoraTarget::fc1)) sum += r * (h + static_cast<double>(m.mlp_up_width()) / t);
  if (f.targets_linear(LoraTarget::fc2)) sum += r * (static_cast<double>(m.ffn) / t + h);
  return sum;
}

}  // namespace simctl
