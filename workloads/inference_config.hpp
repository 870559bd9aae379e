#pragma once
// Reads a `workload:` mapping with `task: inference`: model, parallel
// {tensor, pipeline, data}, batch, context, precision (of the weights) and
// kv_cache_dtype. Kept apart from the training parser, whose batch fields
// (micro_batch, global_batch) and knobs do not apply.
#include <string>

#include "sim/config/config_node.hpp"
#include "workloads/model_catalogue.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

// True when the mapping says `task: inference`; fails on a task other than
// training or inference.
bool is_inference_task(const ConfigNode& workload);

WorkloadSpec parse_inference_workload(const ConfigNode& workload, const ModelCatalogue& catalogue);

// "llama2-70b (68.98 B params), inference TP 8 x PP 1 x 1 replica = 8 GPUs,
// fp16 weights, fp16 KV cache, batch 1 x 4096-token context"
std::string describe_inference(const WorkloadSpec& spec, int ranks);

}  // namespace simctl
