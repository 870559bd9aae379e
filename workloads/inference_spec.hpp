#pragma once
// What an inference workload (`task: inference`) adds to a model and a
// tensor/pipeline plan: how many sequences each model replica serves at once
// and how many tokens of each it keeps in the KV cache. Estimated for memory
// only (inference_memory.hpp); no trace is built for it yet.
#include <cstdint>

#include "sim/core/dtype.hpp"

namespace simctl {

struct InferenceSpec {
  std::int64_t batch = 1;           // concurrent sequences per model replica
  std::int64_t context_tokens = 0;  // tokens per sequence held in the KV cache
  DType kv_cache_dtype = DType::bf16;
};

}  // namespace simctl
