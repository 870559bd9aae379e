#include "sim/exec/executor.hpp"

#include <catch2/catch.hpp>

#include "models/devices/device_catalogue.hpp"
#include "models/network/link_kinds.hpp"

using namespace simctl;

namespace {

struct Fixture {
  DeviceCatalogue catalogue = DeviceCatalogue::load();
  LinkKindTable links = LinkKindTable::load();
  System system{"two H100 on an NVSwitch"};
  CollectiveTuning tuning = CollectiveTuning::load();

  explicit Fixture(int gpus = 2) {
    const EndpointId cpu = system.add_part(Part{PartKind::cpu_socket, "cpu", "xeon-platinum-8480plus", 0, "cpu", 0, 0});
    const EndpointId dram = system.add_part(Part{PartKind::dram, "dram", "ddr5-4800", 0, "dram", 0, 0});
    const EndpointId nvswitch = system.add_part(Part{PartKind::nvswitch, "nvswitch", "", 0, "nvswitch", 0, 0});
    system.add_cable(cpu, dram, links.defaults(LinkKind::memory_bus));
    for (int g = 0; g < gpus; ++g) {
      const EndpointId gpu =
          system.add_part(Part{PartKind::gpu, "gpu" + std::to_string(g), "h100-sxm", 0, "gpu", g, 0});
      system.add_cable(gpu, nvswitch, links.defaults(LinkKind::nvlink4));
      system.add_cable(gpu, cpu, links.defaults(LinkKind::pcie_gen5_x16));
    }
  }

  ExecutionResult run(const Trace& trace) {
    Executor executor(system, catalogue, trace, tuning);
    return executor.run();
  }
};

Op compute(const char* name, double flops, std::vector<OpIndex> deps = {}) {
  ComputeWork w;
  w.kind = ComputeKind::gemm;
  w.flops = flops;
  w.memory_bytes = 1e6;
  w.m = w.n = w.k = 8192;
  return Op{name, OpPhase::forward, Stream::compute, std::move(deps), w};
}

Op peer(const char* name, PeerTransfer::Side side, std::uint32_t other, double bytes, std::vector<OpIndex> deps = {}) {
  return Op{name, OpPhase::other, Stream::communication, std::move(deps),
            PeerTransfer{side, other, bytes, CommDimension::pipeline}};
}

Op all_reduce(double bytes, std::vector<OpIndex> deps = {}) {
  return Op{"all_reduce", OpPhase::gradient_sync, Stream::communication, std::move(deps),
            CollectiveCall{CollectiveOp::all_reduce, 0, bytes, CommDimension::data}};
}

// `ranks` ranks, each with an empty program of its own, all in group 0.
Trace one_group_trace(std::uint32_t ranks) {
  Trace trace;
  trace.groups.emplace_back();
  for (std::uint32_t r = 0; r < ranks; ++r) {
    trace.groups[0].push_back(r);
    trace.ranks.push_back(RankTrace{r, {}, {}});
  }
  trace.programs.resize(ranks);
  return trace;
}

}  // namespace

TEST_CASE("a receive completes with its send and unblocks what depends on it", "[exec]") {
  Fixture f;
  Trace trace = one_group_trace(2);
  trace.programs[0] = {compute("produce", 1e12), peer("send", PeerTransfer::Side::send, 1, 1e9, {0})};
  trace.programs[1] = {peer("recv", PeerTransfer::Side::receive, 0, 1e9), compute("consume", 1e12, {0})};
  const auto r = f.run(trace);
  const auto& send = r.timeline(0).ops[1];
  const auto& recv = r.timeline(1).ops[0];
  CHECK(send.start == r.timeline(0).ops[0].end);  // send waits for its producer
  CHECK(recv.start == 0);                         // the receive is posted at once...
  CHECK(recv.end == send.end);                    // ...and completes with the send
  CHECK(r.timeline(1).ops[1].start == recv.end);  // the consumer waits for the data
  // 1 GB over one NVLink4 direction at its effective rate, plus latency.
  const double transfer_s = ps_to_seconds(send.end - send.start);
  CHECK(transfer_s == Approx(1e9 / f.links.defaults(LinkKind::nvlink4).effective().bytes_per_s).epsilon(0.02));
}

TEST_CASE("a collective starts only when every member reaches it", "[exec]") {
  Fixture f;
  Trace trace = one_group_trace(2);
  trace.programs[0] = {compute("short", 1e11), all_reduce(1e8, {0})};
  trace.programs[1] = {compute("long", 1e13), all_reduce(1e8, {0})};
  const auto r = f.run(trace);
  const TimePs late_arrival = r.timeline(1).ops[0].end;
  CHECK(r.timeline(0).ops[1].start < late_arrival);  // rank 0 arrived early and waited
  CHECK(r.timeline(0).ops[1].end == r.timeline(1).ops[1].end);
  CHECK(r.timeline(0).ops[1].end > late_arrival);
  CHECK(r.step_time == r.timeline(1).ops[1].end);
}

TEST_CASE("ops on one stream run one at a time in list order", "[exec]") {
  Fixture f(1);
  Trace trace = one_group_trace(1);
  // Both are ready at time 0, but the stream serialises them.
  trace.programs[0] = {compute("a", 1e12), compute("b", 1e12)};
  const auto r = f.run(trace);
  CHECK(r.timeline(0).ops[1].start == r.timeline(0).ops[0].end);
  CHECK(r.timeline(0).ops[0].end - r.timeline(0).ops[0].start == r.timeline(0).ops[1].end - r.timeline(0).ops[1].start);
}

TEST_CASE("compute and communication streams overlap", "[exec]") {
  Fixture f;
  Trace trace = one_group_trace(2);
  for (auto& program : trace.programs)
    program = {compute("grad", 1e11), all_reduce(5e8, {0}), compute("more", 1e13, {0})};
  const auto r = f.run(trace);
  const auto& comm = r.timeline(0).ops[1];
  const auto& more = r.timeline(0).ops[2];
  CHECK(comm.start == more.start);  // both wait only for "grad"
  CHECK(comm.end < more.end);
}

TEST_CASE("a kernel that releases a collective hands its end to the next kernel and the collective alike", "[exec]") {
  Fixture f;
  Trace trace = one_group_trace(2);
  trace.programs[0] = {compute("grad", 1e11), all_reduce(5e8, {0}), compute("more", 1e13, {0})};
  trace.programs[1] = {compute("grad", 2e11), all_reduce(5e8, {0}), compute("more", 1e13, {0})};
  const auto r = f.run(trace);
  for (std::uint32_t rank = 0; rank < 2; ++rank) {
    INFO("rank " << rank);
    const auto& ops = r.timeline(rank).ops;
    CHECK(ops[1].start == ops[0].end);  // the all-reduce is posted as "grad" ends
    CHECK(ops[2].start == ops[0].end);  // and "more" starts then too
    CHECK(ops[2].end > ops[2].start);
  }
  const TimePs slow_grad_end = r.timeline(1).ops[0].end;
  CHECK(slow_grad_end > r.timeline(0).ops[0].end);
  CHECK(r.timeline(0).ops[1].end == r.timeline(1).ops[1].end);  // one collective, done for both at once
  CHECK(r.timeline(0).ops[1].end > slow_grad_end);
  // Rank 0 waited for rank 1's all-reduce, posted as rank 1's "grad" ended.
  REQUIRE(r.meetings.size() == 2);
  CHECK(r.meetings[0][0].ready == slow_grad_end);
  CHECK(r.meetings[0][0].last_arrival == OpRef{1, 1});
  CHECK(r.meetings[1][0].last_arrival == OpRef{1, 1});
}

TEST_CASE("a kernel starts no earlier than the host has issued it and every op before it", "[exec][host_issue]") {
  Fixture f(1);
  Trace trace = one_group_trace(1);
  trace.host_issue_seconds_per_op = 50e-6;
  // Tiny kernels: the host (50 us each) is the bound; then a long one, after
  // which the host is ahead and the next kernel starts at its end.
  trace.programs[0] = {compute("a", 1e6), compute("b", 1e6), compute("long", 1e13), compute("after", 1e6)};
  const auto r = f.run(trace);
  const auto& ops = r.timeline(0).ops;
  const TimePs issue = seconds_to_ps(50e-6);
  CHECK(ops[0].start == issue);
  CHECK(ops[1].start == 2 * issue);
  CHECK(ops[2].start == 3 * issue);
  REQUIRE(ops[2].end > 4 * issue);
  CHECK(ops[3].start == ops[2].end);
  // Without a host cost the same kernels run back to back from 0.
  trace.host_issue_seconds_per_op = 0;
  const auto free = f.run(trace);
  CHECK(free.timeline(0).ops[0].start == 0);
  CHECK(free.timeline(0).ops[1].start == free.timeline(0).ops[0].end);
}

TEST_CASE("an op launched inside the previous op's host call costs the host nothing", "[exec][host_issue]") {
  Fixture f(1);
  Trace trace = one_group_trace(1);
  trace.host_issue_seconds_per_op = 50e-6;
  // A userbuffers GEMM's chunks: the first is the host's call, the other
  // three its C++ loop's launches (Op::host_issued false).
  trace.programs[0] = {compute("chunk0", 1e6), compute("chunk1", 1e6), compute("chunk2", 1e6), compute("next", 1e6)};
  trace.programs[0][1].host_issued = false;
  trace.programs[0][2].host_issued = false;
  const auto r = f.run(trace);
  const auto& ops = r.timeline(0).ops;
  const TimePs issue = seconds_to_ps(50e-6);
  CHECK(ops[0].start == issue);
  CHECK(ops[1].start == ops[0].end);  // issued with chunk0, so the GPU's order alone holds it
  CHECK(ops[2].start == ops[1].end);
  CHECK(ops[3].start == 2 * issue);  // the host's next call
}

TEST_CASE("a collective the host has not issued yet waits for it, and host work costs the host nothing",
          "[exec][host_issue]") {
  Fixture f;
  Trace trace = one_group_trace(2);
  trace.host_issue_seconds_per_op = 1e-3;
  for (auto& program : trace.programs) {
    program = {compute("grad", 1e6), Op{"loader", OpPhase::data_loading, Stream::loader, {}, HostWork{1e-6, 0}},
               all_reduce(1e3, {0}), compute("more", 1e6, {0})};
  }
  const auto r = f.run(trace);
  const TimePs ms = seconds_to_ps(1e-3);
  for (std::uint32_t rank = 0; rank < 2; ++rank) {
    const auto& ops = r.timeline(rank).ops;
    CHECK(ops[0].start == ms);
    CHECK(ops[0].end < 2 * ms);     // "grad" is done long before...
    CHECK(ops[2].start == 2 * ms);  // ...the all-reduce is issued (the loader's host op issues nothing)
    CHECK(ops[3].start == 3 * ms);
  }
}

TEST_CASE("a collective some member never reaches is reported as a deadlock", "[exec]") {
  Fixture f;
  Trace trace = one_group_trace(2);
  trace.programs[0] = {all_reduce(1e6)};
  trace.programs[1] = {compute("no collective here", 1e9)};
  CHECK_THROWS_WITH(f.run(trace), Catch::Contains("deadlocked"));
}

TEST_CASE("a dependency on a later op is refused", "[exec]") {
  Fixture f(1);
  Trace trace = one_group_trace(1);
  trace.programs[0] = {compute("a", 1e9, {1}), compute("b", 1e9)};
  CHECK_THROWS_WITH(f.run(trace), Catch::Contains("depends on a later op"));
}

TEST_CASE("an op waiting on more ops than a dependency counter holds is refused", "[exec]") {
  Fixture f(1);
  Trace trace = one_group_trace(1);
  std::vector<OpIndex> all;
  for (OpIndex i = 0; i <= kMaxDeps; ++i) {
    trace.programs[0].push_back(compute("part", 1e6));
    all.push_back(i);
  }
  trace.programs[0].push_back(compute("join", 1e6, all));
  CHECK_THROWS_WITH(f.run(trace), Catch::Contains("waits on 65536 ops; at most 65535"));
  trace.programs[0].back().deps.pop_back();
  CHECK_NOTHROW(f.run(trace));
}

TEST_CASE("the same trace replays to identical timings", "[exec][determinism]") {
  Fixture f;
  Trace trace = one_group_trace(2);
  for (auto& program : trace.programs) program = {compute("g", 3e11), all_reduce(7e7, {0}), all_reduce(3e7, {0})};
  const auto a = f.run(trace);
  const auto b = f.run(trace);
  for (std::size_t r = 0; r < 2; ++r) {
    for (std::size_t i = 0; i < a.timeline(r).ops.size(); ++i) {
      CHECK(a.timeline(r).ops[i].start == b.timeline(r).ops[i].start);
      CHECK(a.timeline(r).ops[i].end == b.timeline(r).ops[i].end);
    }
  }
}

TEST_CASE("a progress callback sees the replay advance to its end and changes nothing", "[exec][progress]") {
  Fixture f(4);
  Trace trace = one_group_trace(4);
  for (auto& program : trace.programs) {
    for (OpIndex i = 0; i < 40; i += 2) {
      std::vector<OpIndex> after_previous;
      if (i > 0) after_previous.push_back(i - 1);
      program.push_back(compute("layer", 1e11, after_previous));
      program.push_back(all_reduce(4e6, {i}));
    }
  }
  const ExecutionResult plain = f.run(trace);

  std::vector<ReplayProgress> seen;
  Executor executor(f.system, f.catalogue, trace, f.tuning);
  executor.on_progress([&seen](const ReplayProgress& p) { seen.push_back(p); }, 3);  // every 4 events
  const ExecutionResult watched = executor.run();

  REQUIRE(seen.size() > 5);
  CHECK(seen.size() == plain.events / 4 + 1);  // every 4th event, and once at the end
  for (std::size_t i = 1; i < seen.size(); ++i) {
    CHECK(seen[i].simulated >= seen[i - 1].simulated);
    CHECK(seen[i].ops_done >= seen[i - 1].ops_done);
    CHECK(seen[i].events >= seen[i - 1].events);
  }
  CHECK(seen.front().ops_done < seen.front().ops_total);
  CHECK(seen.back().ops_done == trace.op_count());
  CHECK(seen.back().ops_total == trace.op_count());
  CHECK(seen.back().simulated == plain.step_time);
  CHECK(seen.back().events == plain.events);

  CHECK(watched.step_time == plain.step_time);
  CHECK(watched.events == plain.events);
  CHECK(watched.flows == plain.flows);
  for (std::size_t r = 0; r < plain.rank_count(); ++r) {
    for (std::size_t i = 0; i < plain.timeline(r).ops.size(); ++i) {
      CHECK(watched.timeline(r).ops[i].start == plain.timeline(r).ops[i].start);
      CHECK(watched.timeline(r).ops[i].end == plain.timeline(r).ops[i].end);
    }
  }
}
