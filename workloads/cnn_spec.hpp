#pragma once
// A convolutional network described by its layers, as one flat list in
// execution order with every layer's per-sample input and output shape
// already worked out (the loader in cnn_config.hpp expands compact forms such
// as ResNet bottleneck stages into this list). Ends in a softmax
// cross-entropy over the last layer's outputs.
#include <cstdint>
#include <string>
#include <vector>

namespace simctl {

enum class CnnLayerKind : std::uint8_t { conv, batch_norm, relu, max_pool, avg_pool, add, fc };

// One sample's activation tensor: channels x height x width.
struct ImageShape {
  std::int64_t channels = 0, height = 0, width = 0;
  std::int64_t elements() const { return channels * height * width; }
  bool operator==(const ImageShape&) const = default;
};

struct CnnLayer {
  CnnLayerKind kind = CnnLayerKind::relu;
  std::string name;  // torchvision-style, e.g. layer2.0.conv2
  ImageShape in, out;
  std::int64_t kernel = 1, stride = 1, padding = 0;  // conv and pooling
  bool bias = false;                                 // conv and fc

  // Weights, then the bias (conv, fc) or the BN affine shift.
  std::int64_t weight_count() const;
  std::int64_t bias_count() const;
};

struct CnnSpec {
  std::string name;
  std::string source;
  ImageShape input;
  std::vector<CnnLayer> layers;

  std::int64_t classes() const { return layers.back().out.elements(); }
  // Exact: every conv, BN and FC layer's weights and biases.
  std::int64_t parameter_count() const;
};

// Output side of a convolution or pooling window along one axis.
std::int64_t window_output_size(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t padding);

}  // namespace simctl
