#pragma once
// Fine-tuning (`workload.finetune`): which weights train.
//   full   every weight trains, except the embedding and the first
//          `frozen_layers` blocks when that is > 0;
//   lora   every base weight is frozen (Hu et al. 2021, "LoRA"); each targeted
//          linear of each unfrozen block gets adapters A [k x r] and B [r x n],
//          y = xW + (alpha/r) x A B;
//   qlora  LoRA over base linear weights stored in 4-bit NormalFloat with
//          double-quantised block scales (Dettmers et al. 2023, "QLoRA"),
//          dequantised to bf16 before every GEMM that reads them.
// A frozen weight gets no gradient, no optimizer state, no weight-gradient
// GEMM and no data-parallel sync; its input gradient (dgrad) still runs
// where something below it trains. Blocks below the lowest trainable one,
// and a frozen embedding, run no backward at all.
#include <array>
#include <cstdint>

#include "workloads/transformer_spec.hpp"

namespace simctl {

enum class FinetuneMethod : std::uint8_t { full, lora, qlora };
// The linear layers adapters can target: QKV, the attention output
// projection, the MLP's first (up, with gate) and second (down) projection.
enum class LoraTarget : std::uint8_t { qkv, proj, fc1, fc2 };
inline constexpr std::array<const char*, 4> kLoraTargetWords = {"qkv", "proj", "fc1", "fc2"};

struct Finetune {
  FinetuneMethod method = FinetuneMethod::full;
  std::int64_t rank = 0;  // r (lora, qlora)
  double alpha = 0.0;     // the adapters' scale numerator; costs nothing
  std::array<bool, 4> targets{};
  std::int64_t frozen_layers = 0;

  bool adapters() const { return method != FinetuneMethod::full; }
  bool targets_linear(LoraTarget t) const { return adapters() && targets[static_cast<std::size_t>(t)]; }
  // Whether block `layer`'s own weights train, and the embedding's and the
  // head's (with the final norm).
  bool block_trains(std::int64_t layer) const { return !adapters() && layer >= frozen_layers; }
  bool embedding_trains() const { return !adapters() && frozen_layers == 0; }
  bool head_trains() const { return !adapters(); }
  // Whether block `layer` runs a backward pass at all.
  bool runs_backward(std::int64_t layer) const { return layer >= frozen_layers; }
};

// QLoRA's storage per base weight: 4 bits plus double-quantised absmax
// scales (Dettmers et al. 2023, Sec. 3: 0.127 bits per parameter at block
// size 64 with 8-bit second-level scales).
inline constexpr double kNf4BytesPerParameter = (4.0 + 0.127) / 8.0;

// Adapter parameters of one block on one tensor-parallel rank of `tensor`:
// for a column-parallel linear (QKV, MLP up) A is whole and B split by
// columns; for a row-parallel one (attention output, MLP down) A is split by
// rows and B whole.
double adapter_parameters(const TransformerSpec& m, const Finetune& f, std::int64_t tensor);

}  // namespace simctl
