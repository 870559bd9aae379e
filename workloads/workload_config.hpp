#pragma once
// What one training job is: the model, how it is spread over GPUs, batch
// sizes, numeric formats and the data-parallel strategy's knobs. Read from the
// `workload:` section of a config; every check names the offending field.
#include <cstdint>
#include <string>

#include "sim/config/config_node.hpp"
#include "sim/core/dtype.hpp"
#include "sim/core/units.hpp"
#include "workloads/model_catalogue.hpp"
#include "workloads/transformer_spec.hpp"

namespace simctl {

struct ParallelPlan {
  std::int64_t data = 1;  // data-parallel replicas; tensor/pipeline come later
};

enum class Strategy : std::uint8_t { ddp };
enum class Optimizer : std::uint8_t { adam };
enum class ActivationRecompute : std::uint8_t { none, full };

// PyTorch DistributedDataParallel's knobs.
struct DdpOptions {
  Bytes bucket_size_bytes = 25 * kMiB;       // bucket_cap_mb
  Bytes first_bucket_size_bytes = 1 * kMiB;  // dist._DEFAULT_FIRST_BUCKET_BYTES
  bool overlap = true;                       // all-reduce buckets during backward
  DType grad_dtype = DType::bf16;            // gradients and their all-reduce
};

struct WorkloadSpec {
  TransformerSpec model;
  ParallelPlan parallel;
  Strategy strategy = Strategy::ddp;
  std::int64_t micro_batch = 1;   // sequences per GPU per forward/backward
  std::int64_t global_batch = 1;  // sequences per optimizer step, all GPUs
  std::int64_t grad_accum = 1;    // derived: global / (micro * data)
  DType precision = DType::bf16;  // compute dtype of forward/backward
  Optimizer optimizer = Optimizer::adam;
  DdpOptions ddp;
  ActivationRecompute recompute = ActivationRecompute::none;
};

// `node` is the `workload:` mapping. Model ids resolve in `catalogue`.
WorkloadSpec parse_workload(const ConfigNode& node, const ModelCatalogue& catalogue);
// Same, with the catalogue at ModelCatalogue::default_path().
WorkloadSpec parse_workload(const ConfigNode& node);
// Reads a file whose top level holds a `workload:` section.
WorkloadSpec load_workload_file(const std::string& path);

}  // namespace simctl
