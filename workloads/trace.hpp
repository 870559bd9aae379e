#pragma once
// The per-rank operation trace: the contract between workload generators (or a
// trace file) and the executor. Each rank owns an ordered list of ops; an op
// runs on one of the rank's streams once its dependencies (ops of the same
// rank) have finished. Ops on one stream run in list order, like CUDA streams.
// A collective runs when every member of its group has reached it.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "models/devices/compute_work.hpp"
#include "models/network/collective_op.hpp"
#include "sim/core/units.hpp"

namespace simctl {

using OpIndex = std::uint32_t;  // position within one rank's op list

// `loader` is the data loader's workers (storage reads, CPU preprocessing):
// they run beside the GPU's streams, so prefetching never queues behind a
// device copy or a pipeline send. `overlap` carries communication split into
// chunks and pipelined with the chunks of a GEMM (Transformer Engine's
// userbuffers TP overlap): its own stream, so those chunks never queue
// behind data-parallel collectives on `communication`. `prefetch` carries
// weights gathered ahead of their use (Megatron-Core's overlap_param_gather),
// on a NCCL communicator of their own, so tensor-parallel collectives never
// queue behind them. `overlap_send` carries the sends of a ring exchange
// whose receives are on `overlap` (a send finishes only when its receiver
// has posted the receive, so one stream for both would deadlock the ring).
// `data_parallel` carries a hybrid plan's data-parallel gradient and weight
// collectives: NCCL runs each communicator on a stream of its own, so a
// tensor-parallel collective the next GEMM waits for never queues behind a
// gradient reduce-scatter of hundreds of MB, nor a pipeline receive behind it.
enum class Stream : std::uint8_t {
  compute,
  communication,
  copy,
  loader,
  overlap,
  prefetch,
  overlap_send,
  data_parallel
};

// Where the time of an op is booked in the step-time breakdown.
enum class OpPhase : std::uint8_t { forward, backward, optimizer, gradient_sync, data_loading, host_copy, other };

constexpr std::string_view to_string(OpPhase p) {
  switch (p) {
    case OpPhase::forward: return "forward";
    case OpPhase::backward: return "backward";
    case OpPhase::optimizer: return "optimizer";
    case OpPhase::gradient_sync: return "gradient_sync";
    case OpPhase::data_loading: return "data_loading";
    case OpPhase::host_copy: return "host_copy";
    case OpPhase::other: return "other";
  }
  return "?";
}

// Which parallel dimension a communication serves; the report splits
// exposed communication by it.
enum class CommDimension : std::uint8_t { data, tensor, pipeline, expert, context, other };

constexpr std::string_view to_string(CommDimension d) {
  switch (d) {
    case CommDimension::data: return "data";
    case CommDimension::tensor: return "tensor";
    case CommDimension::pipeline: return "pipeline";
    case CommDimension::expert: return "expert";
    case CommDimension::context: return "context";
    case CommDimension::other: return "other";
  }
  return "?";
}

struct CollectiveCall {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::uint32_t group = 0;  // group slot (Trace::group resolves it)
  double bytes = 0.0;       // per-rank buffer size, as nccl-tests counts it
  CommDimension dimension = CommDimension::data;
};

// One side of a point-to-point transfer (pipeline activations, say). The
// k-th send from rank A to rank B pairs with the k-th receive on B from A;
// both ops finish when the bytes have arrived, as NCCL send/recv do.
struct PeerTransfer {
  enum class Side : std::uint8_t { send, receive };
  Side side = Side::send;
  std::uint32_t peer = 0;  // peer slot: the other rank (Trace::peer resolves it)
  double bytes = 0.0;
  CommDimension dimension = CommDimension::pipeline;
};

enum class CopyDirection : std::uint8_t { host_to_device, device_to_host, storage_to_host };

struct CopyCall {
  CopyDirection direction = CopyDirection::host_to_device;
  double bytes = 0.0;
  // A pageable host buffer: the CPU stages it through a pinned buffer in
  // chunks that overlap the DMA; see sim/exec/pageable_staging.hpp.
  bool pageable = false;
};

// Work on the rank's host CPU: a data loader's decoding and augmentation,
// which takes a known time (the batch's share of the loader workers' time),
// or a memory-bound pass such as ZeRO-Offload's CPU Adam step, which streams
// `memory_bytes` (read plus written) through the host's memory: the executor
// runs those bytes as a flow over the CPU's memory bus, so the pass shares
// that bus with copies to and from the GPU. Its time is the flow's, then
// `seconds`.
struct HostWork {
  double seconds = 0.0;
  double memory_bytes = 0.0;
};

struct Op {
  std::string name;
  OpPhase phase = OpPhase::other;
  Stream stream = Stream::compute;
  std::vector<OpIndex> deps;  // earlier ops of the same rank
  std::variant<ComputeWork, CollectiveCall, CopyCall, PeerTransfer, HostWork> work;
  // False: launched by the C++ of the host call that issued the op before it
  // (Transformer Engine's userbuffers chunk loop, AsyncTP's fused op), so the
  // framework's per-op host time is not charged again for it
  // (sim/exec/program_shape.hpp, host_issue_times).
  bool host_issued = true;
};

// Ranks that run the same ops (every rank of one pipeline stage, say) share
// one program: a trace of 1024 ranks then holds a handful of op lists, not
// 1024 copies. A program names process groups and peers by slot, and each
// rank binds its slots to real groups and ranks. A rank with no bindings
// reads slots as the indices themselves (a trace file's ranks, say).
struct RankTrace {
  std::uint32_t program = 0;          // index into Trace::programs
  std::vector<std::uint32_t> groups;  // group slot -> index into Trace::groups
  std::vector<std::uint32_t> peers;   // peer slot -> rank
};

// Totals the report needs to turn a step time into throughput and MFU.
struct StepTotals {
  double model_flops = 0.0;  // useful FLOPs of one step over all ranks (6*N*tokens style, no recompute)
  double tokens = 0.0;       // tokens processed per step over all ranks; 0 for models without tokens (MLP, CNN)
  double samples = 0.0;      // sequences processed per step over all ranks
  double parameters = 0.0;   // model parameter count
};

struct Trace {
  std::vector<std::vector<Op>> programs;           // op lists, shared by the ranks bound to them
  std::vector<RankTrace> ranks;                    // rank r runs on the system's GPU gpu_index(r)
  std::vector<std::vector<std::uint32_t>> groups;  // each group lists its member ranks
  StepTotals totals;
  DType compute_dtype = DType::bf16;
  // Which of the system's GPUs (index into System::gpus()) each rank runs on;
  // empty means rank r on GPU r. Parallel plans place ranks (TP inside a node
  // by default) and users may permute them.
  std::vector<std::uint32_t> gpu_of_rank;
  // The GPU model (a catalogue name) its measured kernels were timed on;
  // empty when none is measured.
  std::string measured_on;
  // The host's time to issue one GPU op (an eager framework's Python,
  // dispatcher and autograd, then the launch), in seconds; 0 when the host
  // is never the bound. The host issues a rank's ops in list order, so an op
  // starts no earlier than the issue of it and of every op before it
  // (sim/exec/program_shape.hpp, host_issue_times). Small models turn
  // launch-bound this way.
  double host_issue_seconds_per_op = 0.0;

  std::uint32_t gpu_index(std::uint32_t rank) const { return gpu_of_rank.empty() ? rank : gpu_of_rank[rank]; }
  std::uint32_t rank_count() const { return static_cast<std::uint32_t>(ranks.size()); }
  const std::vector<Op>& ops(std::uint32_t rank) const { return programs[ranks[rank].program]; }
  // The group a rank's collective runs on and the rank a transfer pairs with.
  // A rank without bindings reads every group id as a slot of its own.
  std::size_t group_slot_count(std::uint32_t rank) const {
    return ranks[rank].groups.empty() ? groups.size() : ranks[rank].groups.size();
  }
  std::uint32_t group_in_slot(std::uint32_t rank, std::uint32_t slot) const {
    const auto& slots = ranks[rank].groups;
    return slots.empty() ? slot : slots.at(slot);
  }
  std::uint32_t group(std::uint32_t rank, const CollectiveCall& call) const { return group_in_slot(rank, call.group); }
  std::uint32_t peer(std::uint32_t rank, const PeerTransfer& transfer) const {
    const auto& slots = ranks[rank].peers;
    return slots.empty() ? transfer.peer : slots.at(transfer.peer);
  }
  // Appends a rank with a program of its own and no slots; returns the rank.
  std::uint32_t add_rank(std::vector<Op> ops);
  std::size_t op_count() const;  // over all ranks
};

// Collectives and transfers meet other ranks; every other op runs alone.
inline bool meets_others(const Op& op) {
  return std::holds_alternative<CollectiveCall>(op.work) || std::holds_alternative<PeerTransfer>(op.work);
}

// A rank's ops with its slots resolved: groups and peers by their real index.
std::vector<Op> resolved_ops(const Trace& trace, std::uint32_t rank);

}  // namespace simctl
