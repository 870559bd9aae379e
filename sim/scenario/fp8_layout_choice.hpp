#pragma once
// Whether a run's per-tensor fp8 operands carry transposes, from the GPUs its
// ranks sit on and the framework (workloads/frameworks.yaml,
// fp8_transposes_by_architecture). Hopper's fp8 GEMMs take only the TN
// layout, so Transformer Engine writes each fp8 operand's transpose beside
// it; on compute capability 10.x cuBLAS reads fp8 operands in any layout and
// TE keeps none (transformer_engine/pytorch/utils.py,
// is_non_tn_fp8_gemm_supported()).
#include "models/devices/device_catalogue.hpp"
#include "sim/topology/system.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

// Sets spec.fp8->transposes for an fp8 (not NVFP4) run: false when every
// rank's GPU architecture is one the framework lists as keeping none (one
// rank that needs them makes the trace, shared by all, price them).
// `ranks`: the world size, as for choose_attention_kernel.
void choose_fp8_transposes(WorkloadSpec& spec, const System& system, const DeviceCatalogue& catalogue, int ranks);

}  // namespace simctl
