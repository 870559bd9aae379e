#include "workloads/finetune_config.hpp"

#include <string>
#include <vector>

#include "sim/config/config_schema.hpp"

namespace simctl {
namespace {

FinetuneMethod parse_method(const ConfigNode& node) {
  const std::string word = node.choice("method", {"full", "lora", "qlora"});
  if (word == "lora") return FinetuneMethod::lora;
  return word == "qlora" ? FinetuneMethod::qlora : FinetuneMethod::full;
}

// An adapter's rank r: at least 1 and at most the hidden size (A is k x r
// with k >= hidden or k = ffn/t; past hidden a "low-rank" update is not).
std::int64_t parse_rank(const ConfigNode& f, const TransformerSpec& m) {
  const ConfigNode node = f.child("rank");
  const std::int64_t rank = node.as_integer();
  if (rank < 1 || rank > m.hidden) {
    node.fail("LoRA rank must be between 1 and the model's hidden size " + std::to_string(m.hidden) + ", got " +
              std::to_string(rank));
  }
  return rank;
}

std::array<bool, 4> parse_targets(const ConfigNode& node) {
  std::array<bool, 4> targets{};
  const std::vector<std::string> words(kLoraTargetWords.begin(), kLoraTargetWords.end());
  const auto elements = node.elements();
  if (elements.empty()) node.fail("list at least one of " + join_choices(words));
  for (const ConfigNode& e : elements) {
    const std::string word = e.as_choice(words);
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (words[i] != word) continue;
      if (targets[i]) e.fail("'" + word + "' is listed twice");
      targets[i] = true;
    }
  }
  return targets;
}

// What fine-tuning is modelled for: dense transformers under the plans whose
// trace builder knows frozen weights.
void check_finetune_fits(const ConfigNode& f, const WorkloadSpec& spec) {
  if (spec.strategy == Strategy::data_parallel) {
    f.fail("fine-tuning under data_parallel (nn.DataParallel) is not modelled; use ddp, zero1-3 or fsdp");
  }
  if (spec.offload.any()) f.fail("fine-tuning with offload is not modelled; remove one of them");
  if (spec.fp8 && spec.finetune && spec.finetune->method == FinetuneMethod::qlora) {
    f.child("method").fail(
        "qlora keeps its base weights in 4-bit nf4, dequantised to bf16, which cannot feed fp8 GEMMs; use "
        "precision: bf16 with qlora, or method: lora with fp8");
  }
}

}  // namespace

void set_finetune(const ConfigNode& node, WorkloadSpec& spec) {
  const auto f = node.optional_child("finetune");
  if (!f) return;
  expect_section(*f, "workload.finetune");
  if (spec.data_parallel_only_model()) {
    f->fail("fine-tuning is modelled for transformers, not '" + spec.model.name + "'; remove finetune");
  }
  if (spec.model.moe()) {
    f->fail("fine-tuning a mixture of experts ('" + spec.model.name + "') is not modelled yet; use a dense model");
  }
  Finetune tune;
  tune.method = f->has("method") ? parse_method(*f) : FinetuneMethod::full;
  const TransformerSpec& m = spec.model;
  if (tune.adapters()) {
    tune.rank = parse_rank(*f, m);
    tune.alpha = f->number_or("alpha", static_cast<double>(tune.rank));
    if (!(tune.alpha > 0.0)) f->child("alpha").fail("must be > 0");
    tune.targets = f->has("targets") ? parse_targets(f->child("targets")) : std::array<bool, 4>{true, true, true, true};
  } else {
    for (const char* key : {"rank", "alpha", "targets"}) {
      if (f->has(key)) f->child(key).fail(std::string(key) + " applies to method lora or qlora, not full");
    }
  }
  tune.frozen_layers = f->integer_or("frozen_layers", 0);
  if (tune.frozen_layers < 0 || tune.frozen_layers >= m.layers) {
    f->child("frozen_layers")
        .fail("must be between 0 and " + std::to_string(m.layers - 1) + " (the model has " + std::to_string(m.layers) +
              " blocks and at least one must train), got " + std::to_string(tune.frozen_layers));
  }
  spec.finetune = tune;
  check_finetune_fits(*f, spec);
}

}  // namespace simctl
