#pragma once
// The shape of a ring (or open chain) collective as point-to-point sends:
// which rank sends which (step, chunk), in what order, and how big. Pure
// data, so that the schedule can be checked without running it.
#include <vector>

#include "models/network/collective_request.hpp"
#include "models/network/collective_tuning.hpp"

namespace simctl {

struct RingSend {
  int step = 0;
  int chunk = 0;
};

struct RingPlan {
  std::vector<EndpointId> order;  // ring order: position p sends to position p+1 (mod n)
  int steps = 0;                  // step indices run 0..steps-1
  int chunks = 1;                 // chunks per step
  double chunk_bytes = 0.0;       // payload per send
  // Per position, its sends in issue order. A send (s, c) with s > 0 needs
  // the predecessor's send (s-1, c) to have arrived first.
  std::vector<std::vector<RingSend>> sends;
  // Per position, the sync latency added when its sends land (NVLink or
  // network step latency); empty: the tuning's step_latency for all.
  std::vector<TimePs> sync_latency;
  // Per position, wire bytes per payload byte on its edge; empty: 1 over the
  // tuning's protocol_efficiency for all. Across nodes a NIC hop differs
  // (collective.cpp, ring_plans).
  std::vector<double> wire_factor;
  // Per position, the wire rate its sender pushes at most (bytes/s; NCCL's
  // CTAs on a NIC hop); empty: no cap.
  std::vector<double> max_bytes_per_s;
  std::uint64_t flow_key = 0;  // ECMP key base: position p's sends hash with flow_key + p
  bool chain = false;          // broadcast/reduce: position p forwards at step p only

  std::size_t total_sends() const;
};

// Ring for all_reduce (2(n-1) steps of bytes/n), all_gather and reduce_scatter
// (n-1 steps of bytes/n); open chain for broadcast (root first) and reduce
// (root last). Throws std::invalid_argument for ops the ring cannot express.
// Without `with_sends` the per-position send lists stay empty (the fast path
// needs only the shape; a 1024-rank ring would list millions of sends).
RingPlan plan_ring(const CollectiveRequest& request, const CollectiveTuning& tuning, bool with_sends = true);
// The send lists plan_ring leaves out without `with_sends`.
void fill_ring_sends(RingPlan& plan);
// Sends the plan makes, whether or not they are listed.
std::size_t ring_send_count(const RingPlan& plan);

}  // namespace simctl
