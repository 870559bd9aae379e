#include "workloads/cnn_config.hpp"

#include "sim/config/config_schema.hpp"

namespace simctl {
namespace {

// Generous bounds that keep every product of sizes far inside int64.
constexpr std::int64_t kMaxChannels = 65'536;
constexpr std::int64_t kMaxSide = 16'384;
constexpr std::int64_t kMaxKernel = 64;
constexpr std::int64_t kMaxRepeat = 1'024;
constexpr std::size_t kMaxCnnLayers = 100'000;
constexpr std::int64_t kBottleneckExpansion = 4;

std::int64_t bounded(const ConfigNode& node, std::int64_t lo, std::int64_t hi) {
  const std::int64_t v = node.as_integer();
  if (v < lo || v > hi) node.fail("must be from " + std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

std::int64_t bounded_or(const ConfigNode& node, const char* key, std::int64_t fallback, std::int64_t lo,
                        std::int64_t hi) {
  return node.has(key) ? bounded(node.child(key), lo, hi) : fallback;
}

// Appends layers, tracking the running shape.
class LayerBuilder {
 public:
  explicit LayerBuilder(ImageShape input) : shape_(input) {}

  void conv(const std::string& name, std::int64_t out, std::int64_t kernel, std::int64_t stride, std::int64_t padding,
            bool bias) {
    CnnLayer l = windowed(CnnLayerKind::conv, name, kernel, stride, padding);
    l.out.channels = out;
    l.bias = bias;
    push(l);
  }
  void pool(CnnLayerKind kind, const std::string& name, std::int64_t kernel, std::int64_t stride,
            std::int64_t padding) {
    push(windowed(kind, name, kernel, stride, padding));
  }
  void same_shape(CnnLayerKind kind, const std::string& name) { push(CnnLayer{kind, name, shape_, shape_}); }
  void fc(const std::string& name, std::int64_t out, bool bias) {
    CnnLayer l{CnnLayerKind::fc, name, shape_, {out, 1, 1}};
    l.bias = bias;
    push(l);
  }
  void bottleneck(const std::string& at, std::int64_t width, std::int64_t stride, bool downsample);

  const ImageShape& shape() const { return shape_; }
  std::vector<CnnLayer> take() { return std::move(layers_); }
  std::string next_name(const char* kind) const { return kind + std::to_string(layers_.size()); }

 private:
  CnnLayer windowed(CnnLayerKind kind, const std::string& name, std::int64_t k, std::int64_t s, std::int64_t p) const {
    CnnLayer l{kind, name, shape_, shape_, k, s, p, false};
    l.out.height = window_output_size(shape_.height, k, s, p);
    l.out.width = window_output_size(shape_.width, k, s, p);
    return l;
  }
  void push(const CnnLayer& l) {
    if (l.out.height < 1 || l.out.width < 1) throw std::invalid_argument(l.name + ": window larger than its input");
    if (layers_.size() >= kMaxCnnLayers) throw std::invalid_argument("more than 100,000 layers");
    layers_.push_back(l);
    shape_ = l.out;
  }

  ImageShape shape_;
  std::vector<CnnLayer> layers_;
};

void LayerBuilder::bottleneck(const std::string& at, std::int64_t width, std::int64_t stride, bool downsample) {
  const ImageShape block_in = shape_;
  const std::int64_t out = kBottleneckExpansion * width;
  conv(at + "conv1", width, 1, 1, 0, false);
  same_shape(CnnLayerKind::batch_norm, at + "bn1");
  same_shape(CnnLayerKind::relu, at + "relu1");
  conv(at + "conv2", width, 3, stride, 1, false);
  same_shape(CnnLayerKind::batch_norm, at + "bn2");
  same_shape(CnnLayerKind::relu, at + "relu2");
  conv(at + "conv3", out, 1, 1, 0, false);
  same_shape(CnnLayerKind::batch_norm, at + "bn3");
  if (downsample) {  // the shortcut reads the block's input
    const ImageShape main_out = shape_;
    shape_ = block_in;
    conv(at + "downsample.0", out, 1, stride, 0, false);
    same_shape(CnnLayerKind::batch_norm, at + "downsample.1");
    if (!(shape_ == main_out)) throw std::invalid_argument(at + ": shortcut and main path shapes differ");
  }
  same_shape(CnnLayerKind::add, at + "add");
  same_shape(CnnLayerKind::relu, at + "relu3");
}

void add_layers(const ConfigNode& list, LayerBuilder& b, int& stage);

void add_conv(const ConfigNode& node, LayerBuilder& b) {
  expect_section(node, "workload.model:cnn.layers[]:conv");
  if (node.has("in") && node.integer("in") != b.shape().channels) {
    node.child("in").fail("does not match the " + std::to_string(b.shape().channels) + " channels reaching it");
  }
  const std::int64_t out = bounded(node.child("conv"), 1, kMaxChannels);
  const std::int64_t k = bounded_or(node, "kernel", 1, 1, kMaxKernel);
  b.conv(node.string_or("name", b.next_name("conv")), out, k, bounded_or(node, "stride", 1, 1, kMaxKernel),
         bounded_or(node, "padding", 0, 0, kMaxKernel), node.bool_or("bias", true));
}

void add_pool(const ConfigNode& node, LayerBuilder& b, CnnLayerKind kind, const char* key) {
  expect_section(node, std::string("workload.model:cnn.layers[]:") + key);
  const std::string name = node.string_or("name", b.next_name(key));
  if (node.child(key).as_string() == "global") return b.pool(kind, name, b.shape().height, b.shape().height, 0);
  const std::int64_t k = bounded(node.child(key), 1, kMaxKernel);
  b.pool(kind, name, k, bounded_or(node, "stride", k, 1, kMaxKernel), bounded_or(node, "padding", 0, 0, kMaxKernel));
}

void add_stage(const ConfigNode& node, LayerBuilder& b, int& stage) {
  expect_section(node, "workload.model:cnn.layers[]:bottleneck");
  const std::int64_t width = bounded(node.child("bottleneck"), 1, kMaxChannels / kBottleneckExpansion);
  const std::int64_t blocks = bounded(node.child("blocks"), 1, kMaxRepeat);
  const std::int64_t stride = bounded_or(node, "stride", 1, 1, kMaxKernel);
  ++stage;
  for (std::int64_t i = 0; i < blocks; ++i) {
    const std::int64_t s = i == 0 ? stride : 1;
    const bool downsample = i == 0 && (s != 1 || b.shape().channels != kBottleneckExpansion * width);
    b.bottleneck("layer" + std::to_string(stage) + "." + std::to_string(i) + ".", width, s, downsample);
  }
}

void add_named(const ConfigNode& node, LayerBuilder& b) {
  const std::string word = node.as_choice({"bn", "relu"});
  if (word == "bn") return b.same_shape(CnnLayerKind::batch_norm, b.next_name("bn"));
  b.same_shape(CnnLayerKind::relu, b.next_name("relu"));
}

void add_layer(const ConfigNode& node, LayerBuilder& b, int& stage) {
  if (node.is_scalar()) return add_named(node, b);
  if (node.has("conv")) return add_conv(node, b);
  if (node.has("max_pool")) return add_pool(node, b, CnnLayerKind::max_pool, "max_pool");
  if (node.has("avg_pool")) return add_pool(node, b, CnnLayerKind::avg_pool, "avg_pool");
  if (node.has("bottleneck")) return add_stage(node, b, stage);
  if (node.has("fc")) {
    expect_section(node, "workload.model:cnn.layers[]:fc");
    return b.fc(node.string_or("name", b.next_name("fc")), bounded(node.child("fc"), 1, kMaxChannels * 16),
                node.bool_or("bias", true));
  }
  if (node.has("repeat")) {
    expect_section(node, "workload.model:cnn.layers[]:repeat");
    const std::int64_t n = bounded(node.child("repeat"), 1, kMaxRepeat);
    for (std::int64_t i = 0; i < n; ++i) add_layers(node.child("layers"), b, stage);
    return;
  }
  node.fail("expected bn, relu or a mapping with one of conv, max_pool, avg_pool, bottleneck, fc, repeat");
}

void add_layers(const ConfigNode& list, LayerBuilder& b, int& stage) {
  for (const auto& item : list.elements()) {
    try {
      add_layer(item, b, stage);
    } catch (const std::invalid_argument& e) {
      item.fail(e.what());
    }
  }
}

ImageShape parse_input(const ConfigNode& node) {
  const auto items = node.elements();
  if (items.size() != 3) node.fail("expected [channels, height, width]");
  return {bounded(items[0], 1, kMaxChannels), bounded(items[1], 1, kMaxSide), bounded(items[2], 1, kMaxSide)};
}

}  // namespace

bool is_cnn_node(const ConfigNode& node) {
  return node.is_map() && node.has("kind") && node.child("kind").is_scalar() && node.string("kind") == "cnn";
}

CnnSpec parse_cnn_spec(const ConfigNode& node, const std::string& name) {
  expect_section(node, "workload.model:cnn");
  CnnSpec spec;
  spec.name = name;
  spec.source = node.string_or("source", "");
  spec.input = parse_input(node.child("input"));
  LayerBuilder b(spec.input);
  int stage = 0;
  add_layers(node.child("layers"), b, stage);
  spec.layers = b.take();
  if (spec.layers.empty() || spec.layers.back().kind != CnnLayerKind::fc) {
    node.child("layers").fail("must end in an fc layer whose outputs are the classes");
  }
  return spec;
}

}  // namespace simctl
