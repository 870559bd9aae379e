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
// data-parallel collectives on `communication`. Either way one host call
// (TE's C++ chunk loop, the fused op) launches a layer's chunks and steps,
// so the framework's per-op host time is charged for its first op only
// (Op::host_issued). The LM head and embedding
// are not TE userbuffers layers and keep Megatron's plain collectives.
//
// torchtitan's AsyncTP is the other way to the same end: Inductor's
// micro_pipeline_tp pass rewrites a compiled block's all-gather -> matmul
// into symm_mem.fused_all_gather_matmul and matmul -> reduce-scatter into
// fused_matmul_reduce_scatter (pytorch/pytorch@006b161
// torch/distributed/_symmetric_memory/__init__.py,
// _pipelined_all_gather_and_consume and _pipelined_produce_and_all2all):
//   all-gather matmul: the rank copies its shard into its symmetric buffer,
//     multiplies it (chunk 0), then for each of the tp-1 peers a copy-engine
//     copy of that peer's shard and the chunk that consumes it;
//   matmul reduce-scatter: tp row chunks, each peer's sent to it as it
//     completes (the rank's own last), then one kernel sums the tp partial
//     shards the peers sent.
// The copies are copy-engine transfers, so the GEMMs keep every SM. Two
// streams alternate the (copy, chunk) pairs so that neighbouring chunks may
// run side by side; simctl runs them one after another (a GEMM's SM share
// is not split between two GEMMs). The column-parallel backward has no
// bulk overlap here: torch saves the gathered input (the forward's or the
// recompute's), so nothing is gathered again, and the dgrad's reduce-scatter
// is a fused matmul reduce-scatter only where one matmul produces the input
// gradient (transformer_ops.cpp, saved_input_column_backward).
#include <string>

#include "workloads/pass_geometry.hpp"

namespace simctl {

// TE's get_default_config(): SMs the pipeline and bulk methods' communication
// kernels take from the GEMM, and the pipeline method's chunk count.
inline constexpr int kUserbuffersCommSms = 16;
inline constexpr int kUserbuffersPipelineSplits = 4;

// Whether this pass overlaps its blocks' TP communication (TP > 1 and SP on),
// by either method; and which.
bool overlaps_tp_comm(const PassGeometry& g);
bool userbuffers_overlap(const PassGeometry& g);
bool async_tp_overlap(const PassGeometry& g);

// All-gather of the row-sharded input (`gathered_bytes` once gathered: fp8
// under FP8 training), then `gemm` (m = the gathered rows): ring exchange
// (or AsyncTP's copies) when overlapping, else Megatron's collective then
// the GEMM.
void gather_then_gemm(const PassGeometry& g, const std::string& gather_name, const std::string& gemm_name,
                      OpPhase phase, const ComputeWork& gemm, double gathered_bytes, OpList& out);

// `gemm`, then the reduce-scatter (or all-reduce without SP) of its output:
// pipelined in chunks when overlapping (userbuffers' 4, AsyncTP's tp).
void gemm_then_scatter(const PassGeometry& g, const std::string& gemm_name, const std::string& scatter_name,
                       OpPhase phase, const ComputeWork& gemm, OpList& out);

// A GEMM that runs beside a bulk-overlapped collective: on the SMs the
// communication leaves when overlapping, unchanged otherwise.
ComputeWork beside_bulk_comm(const PassGeometry& g, ComputeWork gemm);

}  // namespace simctl
