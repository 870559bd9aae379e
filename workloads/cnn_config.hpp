#pragma once
// Reads a `kind: cnn` model mapping (workloads/models.yaml or an inline
// `model:`) into a CnnSpec:
//
//   input: [channels, height, width]
//   layers:                                   # in order; shapes flow through
//     - {conv: 64, kernel: 7, stride: 2, padding: 3, bias: false}  # out channels; `in:` optional, checked
//     - bn
//     - relu
//     - {max_pool: 3, stride: 2, padding: 1}           # kernel (stride defaults to it)
//     - {avg_pool: global}                             # or a kernel size
//     - {bottleneck: 64, blocks: 3, stride: 1}         # ResNet stage: width, 4x width out
//     - {repeat: 2, layers: [{conv: 64, kernel: 3, padding: 1}, relu]}
//     - {fc: 1000}                                     # flattens its input; bias by default
//
// A conv has a bias unless it says `bias: false`, as PyTorch's nn.Conv2d
// (bias=True); a conv followed by BN (ResNet's) names `bias: false`, as
// torchvision does, since BN's shift makes the bias redundant.
// Bottleneck stages expand as torchvision's ResNet v1.5 does: stride on the
// 3x3 conv, a 1x1 conv + BN downsample on the first block when the shape
// changes, and the residual add before the last ReLU.
#include <string>

#include "sim/config/config_node.hpp"
#include "workloads/cnn_spec.hpp"

namespace simctl {

// True when a model mapping names `kind: cnn`.
bool is_cnn_node(const ConfigNode& node);
CnnSpec parse_cnn_spec(const ConfigNode& node, const std::string& name);

}  // namespace simctl
