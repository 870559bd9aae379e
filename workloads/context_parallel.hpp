#pragma once
// Attention under context parallelism (CP, `parallel.context` = cp > 1):
// the sequence is split over cp ranks, so every op of a block but the
// attention core works on the rank's s/cp positions (PassGeometry), and the
// attention core gets the keys and values of the whole sequence in one of
// three ways (`parallel.context_algorithm`). Internal to workloads/.
//
//   ring (Megatron-Core's --cp-comm-type p2p, TE's AttnFuncWithCPAndKVP2P):
//     the sequence is cut into 2*cp chunks and rank r holds chunks r and
//     2cp-1-r, which balances the causal mask. Attention runs in cp steps:
//     step 0 on the rank's own K/V (causal), step i on the K/V block of the
//     rank i places back around the ring (its first or second chunk only:
//     s/cp queries by s/(2cp) keys or the converse, the same FLOPs, priced as
//     the former). Before step 0 the rank sends its K/V block to the next CP
//     rank and step i's block arrives from the previous one while step i-1
//     computes (a block is forwarded as soon as it arrives), so only a
//     transfer slower than a step's compute stays exposed. After each step
//     but the first, the partial output is merged into the running one by
//     its log-sum-exp (a memory-bound correction kernel). Backward passes
//     the K/V blocks around again and, behind them, each block's dK/dV
//     accumulator: a rank adds its step's share and sends it on, and after
//     cp hops the accumulator is back with the block's owner.
//   all_gather (Megatron-Core's all_gather, Llama 3's CP): K and V are
//     all-gathered over the CP group before attention (exposed), the local
//     queries attend to the whole prefix; backward gathers them again and
//     reduce-scatters dK and dV.
//   all_to_all (DeepSpeed-Ulysses, Megatron-Core's a2a): an all-to-all turns
//     Q, K, V from s/cp positions of every local head into all s positions
//     of heads/cp heads, attention runs on those, and an all-to-all turns the
//     output back; backward mirrors them. Heads and kv_heads (per TP rank)
//     must divide by cp.
// Transfers are in the pass dtype (TE sends K/V and dK/dV as the tensors
// are). The ring's sends go on the overlap_send stream and its receives on
// the overlap stream; the collectives of the other two on the communication
// stream, as the TP collectives are. All of it is booked to CP.
#include <string>

#include "workloads/pass_geometry.hpp"

namespace simctl {

// This rank's K and V for its s/cp positions: one ring step's transfer.
double context_kv_bytes(const PassGeometry& g);

void append_context_attention_forward(const PassGeometry& g, const std::string& prefix, OpPhase phase, OpList& out);
void append_context_attention_backward(const PassGeometry& g, const std::string& prefix, OpList& out);

}  // namespace simctl
