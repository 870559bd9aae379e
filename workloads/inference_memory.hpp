#pragma once
// Device memory one rank needs to serve a batch (`task: inference`), per
// pipeline stage (the TP ranks of a stage are alike; data-parallel replicas
// are independent copies):
//
//   weights                P_stage x bytes(precision)   (P per TP rank, stage_layout.hpp)
//   kv_cache               2 (K and V) x layers_on_stage x kv_heads/t x head_dim
//                          x context x batch x bytes(kv_cache_dtype)
//   activations/temporary  the larger of the last stage's logits for one
//                          decode step (batch x vocab/t x bytes) and one
//                          layer's working set for that step
//
// No gradients, no optimizer states, nothing kept between layers.
#include <vector>

#include "workloads/memory_estimate.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

// Bytes of K and V one TP rank holds for the whole batch (stages hold
// equal numbers of layers).
double kv_cache_bytes(const WorkloadSpec& spec);

// One row per pipeline stage. `spec.inference` must be set.
std::vector<StageMemory> estimate_inference_memory(const WorkloadSpec& spec);

}  // namespace simctl
