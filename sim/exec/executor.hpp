#pragma once
// Replays a per-rank trace on a system: compute ops on each GPU's compute
// stream (priced by the device's roofline), collectives as point-to-point
// flows on routed paths, copies as flows over PCIe/C2C. Produces the timing
// of every op; judging what the timings mean is the report's job.
//
// Ranks bound to one program share everything static about it (its shape and,
// per GPU type, its kernel times), so the per-rank state of a 1024-GPU replay
// is a few counters per op.
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/devices/device_catalogue.hpp"
#include "models/network/collective.hpp"
#include "models/network/collective_overrides.hpp"
#include "models/network/flow_network.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/slot_pool.hpp"
#include "sim/exec/execution_result.hpp"
#include "sim/exec/program_shape.hpp"
#include "sim/exec/replica_fold.hpp"
#include "sim/topology/system.hpp"
#include "workloads/trace.hpp"

namespace simctl {

// How far a replay has got, for a progress display.
struct ReplayProgress {
  TimePs simulated = 0;       // the simulated time reached
  std::uint64_t events = 0;   // engine events processed
  std::size_t ops_done = 0;   // ops finished, over all ranks
  std::size_t ops_total = 0;  // ops in the trace, over all ranks
};

// How run() replays: ranks that are alike (replica_fold.hpp) replayed once
// per data-parallel replica position and copied, falling back to every rank
// when they turn out not to be; or every rank, always.
enum class ReplayMode : std::uint8_t { fold_alike, every_rank };

class Executor {
 public:
  using ProgressCallback = std::function<void(const ReplayProgress&)>;
  static constexpr std::uint64_t kProgressEvents = std::uint64_t{1} << 16;

  // `overrides` pin algorithms per op and say whether the fabric reduces
  // (SHARP); by default the tuner chooses every collective's algorithm.
  Executor(const System& system, const DeviceCatalogue& catalogue, const Trace& trace, CollectiveTuning tuning,
           CollectiveOverrides overrides = {});
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Has run() call `callback` every `every_events` engine events (rounded up
  // to a power of two, so the check is one mask) and once when the replay
  // ends. It runs on the replaying thread and must not touch the executor.
  // Without one, the replay loop is the engine's own.
  void on_progress(ProgressCallback callback, std::uint64_t every_events = kProgressEvents);

  // Runs the whole trace once. Throws std::runtime_error if the trace
  // deadlocks (an op whose dependencies can never finish).
  ExecutionResult run();

  void set_replay_mode(ReplayMode mode) { mode_ = mode; }
  // How far an image's transfer, copy or cross-node call may end from the
  // representative's and the fold still hold (the run config's
  // `replay.fold_tolerance`). 0, the default, keeps the fold exact: its
  // answer is the full replay's, byte for byte. Above 0 the images share
  // the representative's timings though theirs differ by up to this much
  // per such op (a route through a spine or core where the
  // representative's stays under one leaf: a few hops of latency).
  void set_fold_tolerance(TimePs tolerance) { fold_tolerance_ = tolerance; }
  // The largest distance between an image's end and the first end of the
  // same op that the last run()'s fold accepted (0 when exact).
  TimePs fold_drift() const { return fold_drift_; }
  // Replicas the last run() replayed as one (1: every rank was replayed).
  std::uint32_t replicas_folded() const { return folded_replicas_; }
  // Why the last run() replayed every rank after trying to fold alike
  // replicas, and the simulated time at which it found out; empty when it
  // did not try, or the fold held.
  struct FoldAbandoned {
    std::string reason;
    TimePs at = 0;
  };
  const std::optional<FoldAbandoned>& fold_abandoned() const { return fold_abandoned_; }

 private:
  // A program's compute kernels priced on one GPU type (0 for other ops).
  struct KernelTimes {
    std::vector<TimePs> time;
    std::shared_ptr<std::vector<KernelBound>> bound;
  };
  // What finish_op touches for every op fills the first cache line; a
  // 16,384-GPU replay misses this state more often than not, so each line
  // more per op costs seconds (bench/large_runs.sh). A rank's timeline is
  // kept here as well as in result_.timelines, its finish time is read off
  // the timings when the replay ends, and its count of finished ops is the
  // sum of its stream heads (every op finished moves its stream's head).
  struct PendingPeer;
  struct alignas(64) RankState {
    const ProgramShape* shape = nullptr;
    DepCount* unfinished_deps = nullptr;  // per op, in counter_memory_
    OpTiming* timing = nullptr;           // per op, result_.timelines[rank].ops
    std::array<bool, kStreamCount> stream_busy{};
    std::array<std::uint32_t, kStreamCount> stream_head{};
    // When each stream's running op started: a stream runs one op at a time,
    // so its op's timing is written once, start and end together, when it
    // ends (one store into the large per-op array instead of two, which a
    // 16,384-rank replay missed in cache each time).
    std::array<TimePs, kStreamCount> stream_start{};
    // Cold: read when an op starts or a collective is called.
    const std::vector<Op>* ops = nullptr;
    const KernelTimes* kernels = nullptr;
    EndpointId endpoint = 0;
    double compute_speed = 1.0;  // the GPU's fraction of catalogue speed (stragglers)
    // Per group slot of the rank's program: the group it binds and the calls
    // issued on it so far, side by side so a collective's arrival reads one
    // place (not the trace's binding and a counter apart).
    struct GroupSlot {
      std::uint32_t group = 0;
      std::uint32_t calls = 0;
    };
    std::vector<GroupSlot> group_slots;
    // Per peer slot of the rank's program: the pending pair it sends on and
    // the one it receives on, found in pending_peers_ at the slot's first
    // transfer (a hashed lookup per transfer was 7 % of an AsyncTP replay).
    // Empty for a rank without slot bindings, whose transfers name ranks.
    struct PeerPairs {
      PendingPeer* as_sender = nullptr;
      PendingPeer* as_receiver = nullptr;
    };
    std::vector<PeerPairs> peer_pairs;

    std::size_t finished_ops() const;
  };
  // One collective call of a group, from its first member's arrival until
  // it completes; pooled, so its list keeps its capacity.
  struct CollectiveCallState {
    std::vector<std::pair<std::uint32_t, OpIndex>> arrived;  // (rank, op)
    std::uint32_t usage = kNoUsage;                          // into result_.collectives, once launched
    TimePs started = 0;                                      // when the last member arrived
    std::uint32_t check = kNoCheck;                          // its images' end check, in a folded replay
    bool local = false;                                      // usage counted in local_usage_
  };
  static constexpr std::uint32_t kNoUsage = UINT32_MAX;
  static constexpr std::uint32_t kNoCheck = UINT32_MAX;
  // A folded replay's flows or collectives run for the representative and
  // for each image at once: all must end together, or the ranks were not
  // alike after all and the replay falls back to every rank.
  struct EndCheck {
    TimePs end = -1;
    std::uint32_t pending = 0;
    const char* what = "";  // what ran for the representative and its images, for fold_abandoned()
  };
  // A group's calls some member has reached but not all: calls[head..].
  struct OpenCalls {
    std::uint32_t first_call = 0;  // the group's call number of calls[head]
    std::size_t head = 0;
    std::vector<std::uint32_t> calls;  // into calls_
  };
  // Sends and receives between one ordered pair of ranks, waiting for their
  // partner; they pair up in arrival order.
  struct PendingPeer {
    std::deque<OpIndex> sends;     // on the sending rank
    std::deque<OpIndex> receives;  // on the receiving rank
    const Path* path = nullptr;    // the pair's route, one ECMP key per pair: found once
    // Under a fold, the images' routes (image j at j - 1), found at the
    // pair's first transfer: a routed lookup per image and transfer cost the
    // 458B bench case 6 % of its replay.
    std::vector<const Path*> image_paths;
  };

  void replay();
  void spread_bundle_usage();
  ExecutionResult replay_once();
  std::uint32_t open_check(std::uint32_t parties, const char* what);
  bool inside_one_node(std::uint32_t sender, std::uint32_t receiver) const;
  bool images_transfer_too(std::uint32_t sender, std::uint32_t receiver) const;
  void abandon_fold(std::string reason);
  void note_end(std::uint32_t check);
  void launch_images(std::uint32_t group, std::uint32_t instance, TimePs start, std::uint64_t keys_before);
  std::uint32_t image_flows(std::uint32_t rank, CopyDirection direction, double bytes);
  bool unfold();
  void unfold_rank(std::uint32_t rep, ImageMeetings& images);
  bool unfold_links();
  ReplayProgress progress() const;
  void shape_programs();
  void prepare_rank(std::uint32_t rank);
  const KernelTimes& kernel_times(std::uint32_t program, const GpuSpec& gpu);
  void try_start_stream(std::uint32_t rank, std::size_t stream);
  void start_op(std::uint32_t rank, OpIndex op);
  void start_compute(std::uint32_t rank, OpIndex op);
  TimePs kernel_time(const RankState& state, OpIndex op) const;
  // The start of `op`, running on its stream (RankState::stream_start).
  static TimePs& running_start(RankState& state, OpIndex op);
  static constexpr OpIndex kNoOp = UINT32_MAX;
  static OpIndex next_kernel(const RankState& state);
  static bool arrives_with_timestamp(const RankState& state, OpIndex dependent, TimePs at);
  std::optional<OpIndex> chained_kernel(const RankState& state, OpIndex op, TimePs end) const;
  bool closes_early(const RankState& state, OpIndex op, TimePs end) const;
  static bool waits_for(const ProgramShape& shape, OpIndex op, OpIndex dependency);
  void settle_kernel(std::uint32_t rank, OpIndex op, TimePs end);
  void arrive(std::uint32_t rank, OpIndex op);
  void arrive_at_collective(std::uint32_t rank, OpIndex op, const CollectiveCall& call);
  CollectiveRequest& request_for(std::uint32_t group);
  void launch_collective(std::uint32_t group, std::uint32_t instance);
  void finish_call(std::uint32_t instance);
  static std::uint32_t usage_of(std::vector<CollectiveUsage>& usages, const CollectiveKind& kind);
  bool spans_nodes(const std::vector<EndpointId>& members) const;
  void start_host_work(std::uint32_t rank, OpIndex op, const HostWork& host);
  void start_copy(std::uint32_t rank, OpIndex op, const CopyCall& copy);
  void arrive_at_peer_transfer(std::uint32_t rank, OpIndex op, const PeerTransfer& transfer);
  PendingPeer& pending_pair(std::uint32_t rank, std::uint32_t sender, std::uint32_t receiver,
                            const PeerTransfer& transfer);
  void launch_peer_transfer(std::uint32_t sender, std::uint32_t receiver, OpIndex send_op, OpIndex receive_op,
                            PendingPeer& pair);
  void start_transfer(std::uint32_t transfer);
  void finish_transfer(std::uint32_t transfer);
  void record_meeting(std::uint32_t rank, OpIndex op, const Rendezvous& meeting);
  void finish_op(std::uint32_t rank, OpIndex op);
  std::size_t result_bytes() const;

  const System& system_;
  const DeviceCatalogue& catalogue_;
  const Trace& trace_;
  CollectiveTuning tuning_;
  CollectiveOverrides overrides_;
  ReplayMode mode_ = ReplayMode::fold_alike;
  TimePs fold_tolerance_ = 0;
  TimePs fold_drift_ = 0;
  std::optional<ReplicaFold> fold_;  // set while a folded replay runs
  bool fold_broken_ = false;
  std::optional<FoldAbandoned> fold_abandoned_;
  std::uint32_t folded_replicas_ = 1;
  SlotPool<EndCheck> checks_;
  // The representative's calls on groups inside it, each standing for one
  // call per replica: counted replicas times when the replay unfolds.
  std::vector<CollectiveUsage> local_usage_;
  ProgressCallback progress_;
  std::uint64_t progress_mask_ = kProgressEvents - 1;

  Engine engine_;
  std::unique_ptr<FlowNetwork> network_;
  std::unique_ptr<CollectiveRunner> collectives_;
  std::vector<std::unique_ptr<ProgramShape>> shapes_;  // per program, built for the first rank bound to it
  std::map<std::pair<std::uint32_t, const GpuSpec*>, KernelTimes> kernel_times_;
  std::unique_ptr<std::pmr::memory_resource> counter_memory_;  // the ranks' dependency counters
  std::vector<RankState> ranks_;
  std::vector<OpenCalls> open_calls_;                // per group
  std::vector<CollectiveRequest> group_requests_;    // per group, built on first use
  std::vector<CollectiveRunner::Memo> group_memos_;  // per group: its last plans
  std::vector<std::uint8_t> group_across_nodes_;     // per group, with its request: members on several nodes
  SlotPool<CollectiveCallState> calls_;
  std::unordered_map<std::uint64_t, PendingPeer> pending_peers_;  // by (sender << 32 | receiver)
  // A send and its receive, paired and moving (or about to).
  struct TransferState {
    std::uint32_t sender = 0;
    std::uint32_t receiver = 0;
    OpIndex send_op = 0;
    OpIndex receive_op = 0;
    std::uint32_t check = kNoCheck;
    const PendingPeer* pair = nullptr;  // its routes (pending_peers_ is node-based: stable)
  };
  SlotPool<TransferState> transfers_;
  ExecutionResult result_;
};

}  // namespace simctl
