#include "models/network/collective.hpp"

#include <catch2/catch.hpp>

#include "models/network/link_kinds.hpp"
#include "models/network/ring_plan.hpp"
#include "sim/config/config_node.hpp"
#include "tests/network/star_router.hpp"

using namespace simctl;
using simctl::test::StarRouter;

namespace {

// n GPUs, each with one NVLink4 port (450 GB/s per direction raw) to an
// NVSwitch: the HGX H100/H200 fabric as the flow network sees it.
struct NvSwitchNode {
  explicit NvSwitchNode(int n, LinkKind port = LinkKind::nvlink4, CollectiveTuning tuning = CollectiveTuning::load())
      : spec(LinkKindTable::load().defaults(port)),
        star(n, spec.latency),
        network(engine, std::vector<Bandwidth>(static_cast<std::size_t>(star.link_count()), spec.effective())),
        runner(engine, network, star, tuning) {
    for (int i = 0; i < n; ++i) members.push_back(static_cast<EndpointId>(i));
  }
  // Runs one collective from time 0 and returns its duration.
  TimePs run(CollectiveOp op, double bytes) {
    TimePs done = -1;
    runner.start({op, members, bytes}, [&] { done = engine.now(); });
    engine.run();
    return done;
  }
  LinkSpec spec;
  Engine engine;
  StarRouter star;
  FlowNetwork network;
  CollectiveRunner runner;
  std::vector<EndpointId> members;
};

double busbw_gbps(CollectiveOp op, int n, double bytes, TimePs t) {
  return bus_bandwidth_bytes_per_s(op, n, bytes, t) / 1e9;
}

CollectiveTuning bare_tuning() {
  CollectiveTuning t;
  t.launch_latency = 0;
  t.step_latency = 0;
  t.protocol_efficiency = 1.0;
  t.chunk_bytes = 1e6;
  t.max_chunks_per_step = 64;
  return t;
}

}  // namespace

TEST_CASE("ring collectives on NVSwitch match measured nccl-tests bus bandwidth",
          "[network][collective][calibration]") {
  const ConfigNode points = ConfigNode::load_file(data_root() + "/models/network/measured/reference_points.yaml");
  for (const ConfigNode& point : points.child("reference_points").elements()) {
    const std::string id = point.string("id");
    const CollectiveOp op = *collective_op_from_string(point.string("op"));
    const int n = static_cast<int>(point.positive_integer("gpus"));
    const double bytes = point.number("bytes");
    const double measured = point.bandwidth("busbw").gb_per_s();
    NvSwitchNode node(n, *link_kind_from_string(point.string("link")));
    const double simulated = busbw_gbps(op, n, bytes, node.run(op, bytes));
    INFO(id << ": measured " << measured << " GB/s, simulated " << simulated << " GB/s");
    CHECK(simulated == Approx(measured).epsilon(0.10));
  }
}

TEST_CASE("1 GiB ring all-reduce on 8 H100 over NVSwitch reaches the measured ring busbw", "[network][collective]") {
  const ConfigNode points = ConfigNode::load_file(data_root() + "/models/network/measured/reference_points.yaml");
  double measured = 0.0;
  for (const ConfigNode& point : points.child("reference_points").elements()) {
    if (point.string("id") == "A-H200x8-AR-ring-16GiB") measured = point.bandwidth("busbw").gb_per_s();
  }
  REQUIRE(measured > 0.0);
  NvSwitchNode node(8);
  const double bytes = static_cast<double>(kGiB);
  const double simulated = busbw_gbps(CollectiveOp::all_reduce, 8, bytes, node.run(CollectiveOp::all_reduce, bytes));
  INFO("simulated " << simulated << " GB/s vs measured " << measured);
  CHECK(simulated == Approx(measured).epsilon(0.10));
  // The ring can never beat the wire's effective rate.
  CHECK(simulated < node.spec.effective().gb_per_s());
}

TEST_CASE("a 1 MB all-reduce is latency-dominated", "[network][collective]") {
  NvSwitchNode small(8), large(8);
  const TimePs t_small = small.run(CollectiveOp::all_reduce, 1e6);
  const TimePs t_large = large.run(CollectiveOp::all_reduce, static_cast<double>(kGiB));
  const double bw_small = busbw_gbps(CollectiveOp::all_reduce, 8, 1e6, t_small);
  const double bw_large = busbw_gbps(CollectiveOp::all_reduce, 8, static_cast<double>(kGiB), t_large);
  CHECK(bw_small < 0.25 * bw_large);
  // Every one of the 2(n-1) steps pays its sync latency, after the launch.
  const CollectiveTuning& t = small.runner.tuning();
  CHECK(t_small > t.launch_latency + 14 * t.step_latency);
}

TEST_CASE("collective runs are deterministic", "[network][collective]") {
  auto run_once = [] {
    NvSwitchNode node(8);
    std::vector<TimePs> done;
    // Two overlapping collectives on different subsets contend for links.
    node.runner.start({CollectiveOp::all_reduce, {0, 1, 2, 3, 4, 5, 6, 7}, 3e8},
                      [&] { done.push_back(node.engine.now()); });
    node.runner.start({CollectiveOp::all_gather, {7, 5, 3, 1}, 2e8}, [&] { done.push_back(node.engine.now()); });
    node.engine.run();
    return done;
  };
  const auto first = run_once();
  CHECK(first.size() == 2);
  CHECK(first == run_once());
}

TEST_CASE("start says what it runs: the choice of choice_for, the pinned algorithm, nothing for a no-op",
          "[network][collective]") {
  NvSwitchNode node(4);
  const CollectiveRequest automatic{CollectiveOp::all_reduce, node.members, 64e6};
  const auto ran = node.runner.start(automatic, [] {});
  REQUIRE(ran.has_value());
  CHECK(ran->algorithm == node.runner.choice_for(automatic).algorithm);
  CHECK(ran->protocol == node.runner.choice_for(automatic).protocol);
  const auto pinned =
      node.runner.start({CollectiveOp::all_reduce, node.members, 64e6, CollectiveAlgorithm::tree}, [] {});
  REQUIRE(pinned.has_value());
  CHECK(pinned->algorithm == CollectiveAlgorithm::tree);
  bool called = false;
  CHECK_FALSE(node.runner.start({CollectiveOp::all_reduce, {0}, 1e9}, [&] { called = true; }).has_value());
  CHECK_FALSE(node.runner.start({CollectiveOp::all_reduce, node.members, 0.0}, [] {}).has_value());
  CHECK_FALSE(called);  // completion comes from an event, never inside start
  node.engine.run();
  CHECK(called);
}

TEST_CASE("one member completes at once, two members work", "[network][collective]") {
  NvSwitchNode node(2);
  TimePs done = -1;
  node.runner.start({CollectiveOp::all_reduce, {0}, 1e9}, [&] { done = node.engine.now(); });
  node.engine.run();
  CHECK(done == 0);
  // n=2 all-reduce: 2 steps of bytes/2 per rank, busbw = algbw.
  const double bytes = static_cast<double>(kGiB);
  const double bw = busbw_gbps(CollectiveOp::all_reduce, 2, bytes, node.run(CollectiveOp::all_reduce, bytes));
  const double ceiling = node.spec.effective().gb_per_s() * node.runner.tuning().protocol_efficiency;
  CHECK(bw < ceiling);
  CHECK(bw > 0.95 * ceiling);
}

TEST_CASE("chunks pipeline the ring: time is the link's total work plus one latency", "[network][collective]") {
  // 4 ranks, 100 GB/s links, no protocol overheads, 8 MB all-reduce in 1 MB
  // chunks: each step moves 2 MB = 2 chunks per rank, 6 steps -> 12 chunk
  // sends back to back on every up link = 12 * 10 us. The last arrival then
  // adds one path latency. Without pipelining across steps it would pay the
  // latency 6 times.
  Engine engine;
  StarRouter star(4, 500 * kPsPerNs);
  FlowNetwork net(engine, std::vector<Bandwidth>(8, Bandwidth{100e9}));
  CollectiveRunner runner(engine, net, star, bare_tuning());
  TimePs done = -1;
  runner.start({CollectiveOp::all_reduce, {0, 1, 2, 3}, 8e6}, [&] { done = engine.now(); });
  engine.run();
  CHECK(done == Approx(12 * 10 * kPsPerUs + kPsPerUs).margin(50));
  CHECK(net.flows_started() == 4 * 12);
}

TEST_CASE("a ring is as slow as its slowest link", "[network][collective]") {
  auto run_with_slow_link = [](double slow_bytes_per_s) {
    Engine engine;
    StarRouter star(4, 0);
    std::vector<Bandwidth> caps(8, Bandwidth{100e9});
    caps[StarRouter::up(2)] = Bandwidth{slow_bytes_per_s};
    FlowNetwork net(engine, caps);
    CollectiveRunner runner(engine, net, star, bare_tuning());
    TimePs done = -1;
    runner.start({CollectiveOp::all_gather, {0, 1, 2, 3}, 4e8}, [&] { done = engine.now(); });
    engine.run();
    return busbw_gbps(CollectiveOp::all_gather, 4, 4e8, done);
  };
  CHECK(run_with_slow_link(100e9) == Approx(100.0).epsilon(0.01));
  CHECK(run_with_slow_link(50e9) == Approx(50.0).epsilon(0.02));
}

TEST_CASE("broadcast and reduce pipeline along a chain", "[network][collective]") {
  for (CollectiveOp op : {CollectiveOp::broadcast, CollectiveOp::reduce}) {
    NvSwitchNode node(8);
    const double bytes = static_cast<double>(kGiB);
    const double bw = busbw_gbps(op, 8, bytes, node.run(op, bytes));
    const double ceiling = node.spec.effective().gb_per_s() * node.runner.tuning().protocol_efficiency;
    INFO(to_string(op) << " busbw " << bw);
    // A chain of 8 with 64 chunks pays (n-1)/(chunks) of ramp: ~10% below the wire.
    CHECK(bw < ceiling);
    CHECK(bw > 0.85 * ceiling);
  }
}

TEST_CASE("ring plans have the nccl step structure", "[network][collective]") {
  CollectiveTuning t = bare_tuning();
  t.chunk_bytes = 1e6;
  t.max_chunks_per_step = 4;
  const std::vector<EndpointId> m{0, 1, 2, 3, 4, 5, 6, 7};
  const RingPlan ar = plan_ring({CollectiveOp::all_reduce, m, 8e6}, t);
  CHECK(ar.steps == 14);
  CHECK(ar.chunks == 1);
  CHECK(ar.total_sends() == 8 * 14);
  const RingPlan ag = plan_ring({CollectiveOp::all_gather, m, 8e9}, t);
  CHECK(ag.steps == 7);
  CHECK(ag.chunks == 4);  // capped
  CHECK(ag.chunk_bytes == Approx(8e9 / 8 / 4));
  const RingPlan bc = plan_ring({CollectiveOp::broadcast, m, 3e6}, t);
  CHECK(bc.total_sends() == 7 * 3);
  CHECK(bc.sends[7].empty());
  const RingPlan rd = plan_ring({CollectiveOp::reduce, m, 3e6}, t);
  CHECK(rd.order.back() == 0);  // root receives last
  CHECK_THROWS_AS(plan_ring({CollectiveOp::all_to_all, m, 1e6}, t), std::invalid_argument);
}

TEST_CASE("collective tuning is loaded with its figures", "[network][collective]") {
  const CollectiveTuning t = CollectiveTuning::load();
  CHECK(t.launch_latency == 8400 * kPsPerNs);
  CHECK(t.step_latency == 3400 * kPsPerNs);
  CHECK(t.protocol_efficiency > 0.85);
  CHECK(t.protocol_efficiency <= 1.0);
}

TEST_CASE("a group's memo plans as the caches do and forgets its plans when the topology changes",
          "[network][collective]") {
  NvSwitchNode memoised(8), plain(8);
  CollectiveRunner::Memo memo;
  struct Call {
    CollectiveOp op;
    double bytes;
  };
  // Three kinds on one group: more than the memo holds, and each repeated.
  const std::vector<Call> calls{{CollectiveOp::all_gather, 32e6},     {CollectiveOp::reduce_scatter, 32e6},
                                {CollectiveOp::all_gather, 32e6},     {CollectiveOp::all_reduce, 64e3},
                                {CollectiveOp::reduce_scatter, 32e6}, {CollectiveOp::all_reduce, 64e3}};
  auto run = [](NvSwitchNode& node, const Call& call, CollectiveRunner::Memo* memo) {
    TimePs done = -1;
    const auto choice = node.runner.start_at(
        node.engine.now(), {call.op, node.members, call.bytes}, [&] { done = node.engine.now(); }, memo);
    node.engine.run();
    REQUIRE(choice);
    return std::make_pair(*choice, done);
  };
  for (const Call& call : calls) {
    const auto [with_memo, memo_done] = run(memoised, call, &memo);
    const auto [without, plain_done] = run(plain, call, nullptr);
    CHECK(with_memo.algorithm == without.algorithm);
    CHECK(with_memo.protocol == without.protocol);
    CHECK(memo_done == plain_done);
  }
  // Told that the group spans two nodes, the runner plans network hops into
  // the ring; the memo must not answer with the plan it kept.
  const Call big{CollectiveOp::reduce_scatter, 32e6};
  const TimePs start = plain.engine.now();
  const TimePs before = run(plain, big, nullptr).second - start;
  CollectiveTopology two_nodes;
  two_nodes.intra_bytes_per_s = 360e9;
  two_nodes.inter_bytes_per_s = 45e9;
  for (EndpointId gpu = 0; gpu < 8; ++gpu) {
    MemberPlace place;
    place.node = gpu < 4 ? 0 : 1;
    two_nodes.set_place(gpu, place);
  }
  memoised.runner.set_topology(two_nodes);
  plain.runner.set_topology(two_nodes);
  const TimePs plain_start = plain.engine.now(), memo_start = memoised.engine.now();
  const TimePs after_plain = run(plain, big, nullptr).second - plain_start;
  REQUIRE(after_plain != before);
  const TimePs after_memo = run(memoised, big, &memo).second - memo_start;
  CHECK(after_memo == after_plain);
}
