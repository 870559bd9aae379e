#pragma once
// The catalogue of named models (transformers by their dimensions, MLPs by
// their layer widths, CNNs by their layer lists, LSTM language models by
// their widths) (workloads/models.yaml) and the
// reader for a model's dimensions, shared by catalogue entries and inline
// `model:` mappings in a workload config.
#include <string>
#include <vector>

#include "sim/config/config_node.hpp"
#include "workloads/cnn_spec.hpp"
#include "workloads/lstm_spec.hpp"
#include "workloads/mlp_spec.hpp"
#include "workloads/transformer_spec.hpp"

namespace simctl {

// Reads dimensions and layout choices from a mapping; `name` labels the
// result. Rejects non-positive sizes, hidden not divisible by heads and
// kv_heads not dividing heads.
TransformerSpec parse_transformer_spec(const ConfigNode& node, const std::string& name);

class ModelCatalogue {
 public:
  static ModelCatalogue load(const ConfigNode& root);  // root has `models:`
  static ModelCatalogue load_file(const std::string& path);
  static std::string default_path();  // <data root>/workloads/models.yaml

  const TransformerSpec* find(const std::string& id) const;
  const MlpSpec* find_mlp(const std::string& id) const;    // entries with `kind: mlp`
  const CnnSpec* find_cnn(const std::string& id) const;    // entries with `kind: cnn`
  const LstmSpec* find_lstm(const std::string& id) const;  // entries with `kind: lstm`
  std::vector<std::string> ids() const;

 private:
  std::vector<TransformerSpec> models_;
  std::vector<MlpSpec> mlps_;
  std::vector<CnnSpec> cnns_;
  std::vector<LstmSpec> lstms_;
};

}  // namespace simctl
