#pragma once
// Hybrid TP x PP x DP training (Megatron-LM style) as per-rank traces. Each
// rank runs its pipeline stage's chunks micro-batch by micro-batch in the
// order of the plan's schedule; activations and their gradients cross stages
// as point-to-point transfers, so a stage idles exactly until its input
// arrives and the pipeline bubble comes out of the simulation. Tensor-parallel
// collectives sit between the sharded GEMMs; data-parallel gradient (and
// ZeRO/FSDP weight) traffic follows data_parallel_sync.hpp.
//
// Streams: compute ops chain on the compute stream; TP and DP collectives and
// the receives of activations/gradients go on the communication stream in the
// order the stage needs them; sends go on the copy stream, so a send waiting
// for its receiver never blocks the sender's own collectives (Megatron posts
// sends and receives together with batch_isend_irecv).
//
// Op names start with the micro-batch ("mb3.") and, when interleaved, the
// chunk ("mb3.c1."), so a timeline can be read per micro-batch.
#include <string>

#include "workloads/trace.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

// Any strategy but data_parallel; spec.parallel gives TP, PP, DP, SP, the
// schedule and the rank placement.
Trace build_parallel_trace(const WorkloadSpec& spec);

std::string pipeline_op_prefix(std::int64_t micro, std::int64_t chunk, std::int64_t virtual_stages);

}  // namespace simctl
