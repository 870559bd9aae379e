#pragma once
// Tensor-parallel communication overlapped with the GEMMs it feeds, as
// Transformer Engine's userbuffers do it under Megatron-Core's
// --tp-comm-overlap (sequence parallelism on). Internal to workloads/.
//
// Each TE linear layer of a block picks a method (TE's defaults, from
// transformer_engine/pytorch/module/base.py, initialize_ub(), its `methods`
// table and get_default_config()):
//   ring_exchange (qkv and fc1 forward, proj and fc2 dgrad): the all-gather
//     before the GEMM becomes tp-1 exchange steps, each a send of one shard
//     to the next TP rank and a receive from the previous (the send of step
//     k forwards the shard step k-1 received), while the GEMM runs in tp row
//     chunks; chunk 0 is the rank's own shard, chunk k waits for step k. The
//     copy engines move the shards (use_ce), num_sm = 1 and no SM margin:
//     the GEMM keeps every SM.
//   pipeline (proj and fc2 forward): the GEMM runs in num_splits = 4 row
//     chunks and each chunk's output is reduce-scattered while the next
//     chunk computes; the last chunk's reduce-scatter stays exposed. The
//     communication kernels hold num_sm = 16 SMs and the GEMM is launched on
//     the rest (set_sm_margin).
//   bulk (qkv and fc1 dgrad / wgrad): the input all-gather runs whole beside
//     the dgrad GEMM, the dgrad reduce-scatter whole beside the wgrad GEMM,
//     each GEMM on the SMs the 16 communication SMs leave.
// The chunked communication runs on the `overlap` stream, apart from the
// data-parallel collectives on `communication`. The LM head and embedding
// are not TE userbuffers layers and keep Megatron's plain collectives.
#include <string>

#include "workloads/pass_geometry.hpp"

namespace simctl {

// TE's get_default_config(): SMs the pipeline and bulk methods' communication
// kernels take from the GEMM, and the pipeline method's chunk count.
inline constexpr int kUserbuffersCommSms = 16;
inline constexpr int kUserbuffersPipelineSplits = 4;

// Whether this pass overlaps its blocks' TP communication (TP > 1 and SP on).
bool overlaps_tp_comm(const PassGeometry& g);

// All-gather of the row-sharded input (`gathered_bytes` once gathered: fp8
// under FP8 training), then `gemm` (m = the gathered rows): ring exchange
// when overlapping, else Megatron's collective then the GEMM.
void gather_then_gemm(const PassGeometry& g, const std::string& gather_name, const std::string& gemm_name,
                      OpPhase phase, const ComputeWork& gemm, double gathered_bytes, OpList& out);

// `gemm`, then the reduce-scatter (or all-reduce without SP) of its output:
// pipelined in chunks when overlapping.
void gemm_then_scatter(const PassGeometry& g, const std::string& gemm_name, const std::string& scatter_name,
                       OpPhase phase, const ComputeWork& gemm, OpList& out);

// A GEMM that runs beside a bulk-overlapped collective: on the SMs the
// communication leaves when overlapping, unchanged otherwise.
ComputeWork beside_bulk_comm(const PassGeometry& g, ComputeWork gemm);

}  // namespace simctl
