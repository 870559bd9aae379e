#pragma once
// What an inference workload (`task: inference`) adds to a model and a
// tensor/pipeline plan: how many sequences each model replica serves at once,
// how long their prompts and outputs are, how many tokens of each it keeps
// in the KV cache, and optionally a stream of requests to serve with
// continuous batching. `simctl memory` estimates its memory
// (inference_memory.hpp); `simctl run` replays its prefill and decode steps
// (inference_trace.hpp, sim/scenario/inference_run.hpp).
#include <cstdint>
#include <optional>

#include "sim/core/dtype.hpp"

namespace simctl {

// Token counts of a request stream: each request draws its length uniformly
// from [min, max] (min == max: every request alike).
struct TokenRange {
  std::int64_t min = 0;
  std::int64_t max = 0;
};

// Requests arriving as a Poisson process (exponential gaps at `rate`), each
// with a prompt and an output length drawn from its range, from `seed`: the
// same seed gives the same stream. Served with continuous batching: at most
// InferenceSpec::batch sequences at once.
struct RequestStream {
  double rate_per_s = 1.0;
  std::int64_t count = 100;
  TokenRange prompt_tokens;
  TokenRange output_tokens;
  std::uint64_t seed = 1;
};

struct InferenceSpec {
  std::int64_t batch = 1;           // concurrent sequences per model replica
  std::int64_t context_tokens = 0;  // tokens per sequence held in the KV cache
  DType kv_cache_dtype = DType::bf16;
  std::int64_t prompt_tokens = 0;  // per sequence of a static batch; 0: not given (memory only)
  std::int64_t output_tokens = 0;  // generated per sequence, the first by the prefill
  std::optional<RequestStream> requests;
};

}  // namespace simctl
