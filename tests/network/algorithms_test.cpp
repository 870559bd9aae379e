// Algorithms other than the plain ring, the fast path, contention and the
// tuner's choices.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

#include "models/devices/device_catalogue.hpp"
#include "models/network/collective.hpp"
#include "models/network/collective_group.hpp"
#include "models/network/collective_overrides.hpp"
#include "models/network/collective_plans.hpp"
#include "models/network/link_kinds.hpp"
#include "models/network/nccl_test.hpp"
#include "models/network/system_collective_topology.hpp"
#include "sim/topology/system_config.hpp"
#include "tests/network/shipped_systems.hpp"
#include "tests/network/star_router.hpp"

using namespace simctl;
using simctl::test::StarRouter;
using simctl::test::system_named;

namespace {

struct Star {
  Star(int n, CollectiveTuning tuning = CollectiveTuning::load())
      : spec(LinkKindTable::load().defaults(LinkKind::nvlink4)),
        star(n, spec.latency),
        network(engine, std::vector<Bandwidth>(static_cast<std::size_t>(star.link_count()), spec.effective())),
        runner(engine, network, star, tuning) {
    for (int i = 0; i < n; ++i) members.push_back(static_cast<EndpointId>(i));
  }
  TimePs run(CollectiveOp op, double bytes, CollectiveAlgorithm a = CollectiveAlgorithm::automatic) {
    TimePs done = -1;
    runner.start({op, members, bytes, a}, [&] { done = engine.now(); });
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

double busbw(CollectiveOp op, int n, double bytes, TimePs t) {
  return bus_bandwidth_bytes_per_s(op, n, bytes, t) / 1e9;
}

// Endpoints 0..3 on the left leaf, 4..7 on the right; each has a 100 GB/s
// port, and one 100 GB/s spine cable joins the leaves: 4:1 oversubscribed.
class TwoLeafRouter : public Router {
 public:
  static constexpr int kLinks = 18;
  static LinkId up(int i) { return static_cast<LinkId>(2 * i); }
  static LinkId down(int i) { return static_cast<LinkId>(2 * i + 1); }
  static constexpr LinkId kLeftToRight = 16, kRightToLeft = 17;
  TwoLeafRouter() {
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < 8; ++j) {
        Path& p = paths_[i][j];
        if (i == j) continue;
        p.links = {up(i)};
        if ((i < 4) != (j < 4)) p.links.push_back(i < 4 ? kLeftToRight : kRightToLeft);
        p.links.push_back(down(j));
        p.latency = 1000;
      }
    }
  }
  const Path& route(EndpointId from, EndpointId to) const override { return paths_[from][to]; }

 private:
  Path paths_[8][8];
};

}  // namespace

TEST_CASE("the ring's fast path agrees with the step-by-step ring", "[network][collective][fast]") {
  for (int n : {8, 16}) {
    for (double bytes : {256.0 * 1024, 4.0 * kMiB, 64.0 * kMiB, 1.0 * kGiB}) {
      for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather}) {
        CollectiveTuning slow = CollectiveTuning::load(), fast = slow;
        slow.fast_path_min_sends = UINT64_MAX;
        fast.fast_path_min_sends = 1;
        Star a(n, slow), b(n, fast);
        const TimePs t_steps = a.run(op, bytes, CollectiveAlgorithm::ring);
        const TimePs t_fast = b.run(op, bytes, CollectiveAlgorithm::ring);
        INFO(n << " GPUs, " << bytes << " B, " << to_string(op));
        CHECK(static_cast<double>(t_fast) == Approx(static_cast<double>(t_steps)).epsilon(0.02));
        CHECK(b.network.flows_started() == static_cast<std::uint64_t>(n));
        // Small messages go in one chunk per step, so fewer flows to save there.
        CHECK(a.network.flows_started() > (bytes >= 64.0 * kMiB ? 10 : 6) * b.network.flows_started());
      }
    }
  }
}

TEST_CASE("every algorithm completes every op it supports, below the wire rate", "[network][collective]") {
  const double bytes = 256.0 * kMiB;
  for (CollectiveAlgorithm a : {CollectiveAlgorithm::ring, CollectiveAlgorithm::tree, CollectiveAlgorithm::direct,
                                CollectiveAlgorithm::halving_doubling, CollectiveAlgorithm::master}) {
    for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
                            CollectiveOp::broadcast, CollectiveOp::reduce, CollectiveOp::all_to_all}) {
      Star star(8);
      const CollectiveRequest r{op, star.members, bytes, a};
      if (!algorithm_applies(a, r, shape_of(r.members, nullptr), nullptr)) {
        CHECK_THROWS_AS(star.run(op, bytes, a), std::invalid_argument);
        continue;
      }
      const TimePs t = star.run(op, bytes, a);
      INFO(to_string(a) << " " << to_string(op));
      REQUIRE(t > 0);
      CHECK(busbw(op, 8, bytes, t) < star.spec.effective().gb_per_s());
      CHECK(star.network.active_flows() == 0);
    }
  }
}

TEST_CASE("halving-doubling has log2(n) exchanges each way and needs a power of two", "[network][collective]") {
  const CollectiveTuning tuning = CollectiveTuning::load();
  const std::vector<EndpointId> m{0, 1, 2, 3, 4, 5, 6, 7};
  const CollectiveRequest ar{CollectiveOp::all_reduce, m, 8e6};
  const TransferPlan plan =
      plan_halving_doubling({ar, tuning, tuning.protocol(Protocol::simple, ProtocolUse{}), nullptr});
  CHECK(plan.transfers.size() == 2 * 3 * 8);
  CHECK(plan.transfers.front().wire_bytes == Approx(4e6 / tuning.protocol_efficiency));
  const CollectiveRequest six{CollectiveOp::all_reduce, {0, 1, 2, 3, 4, 5}, 8e6};
  CHECK_THROWS_AS(plan_halving_doubling({six, tuning, tuning.protocol(Protocol::simple, ProtocolUse{}), nullptr}),
                  std::invalid_argument);
}

TEST_CASE("DataParallel's master GPU is the bottleneck link", "[network][collective][master]") {
  Star star(8);
  const double bytes = 256.0 * kMiB;
  star.run(CollectiveOp::all_reduce, bytes, CollectiveAlgorithm::master);
  const double root_in = star.network.bytes_carried(StarRouter::down(0));
  const double root_out = star.network.bytes_carried(StarRouter::up(0));
  for (int i = 1; i < 8; ++i) {
    CHECK(root_in > 6.5 * star.network.bytes_carried(StarRouter::up(i)));
    CHECK(root_out > 6.5 * star.network.bytes_carried(StarRouter::down(i)));
    CHECK(star.network.utilisation(StarRouter::down(0)) > 3 * star.network.utilisation(StarRouter::up(i)));
  }
  // And it is much slower than the ring that spreads the same work.
  Star ring(8);
  CHECK(ring.run(CollectiveOp::all_reduce, bytes, CollectiveAlgorithm::ring) * 3 < star.engine.now());
}

TEST_CASE("across nodes the ring's fast path still agrees with the step-by-step ring",
          "[network][collective][fast][multinode]") {
  // Two of a ring's 16 edges cross the network, with its longer step sync:
  // the chain of steps crosses them 2 in 16 times, not every step. Charging
  // that sync on every step made the fast path +187% at 16 MiB and +63% at
  // 128 MiB. Where one chunk per step leaves the links idle part of the time
  // (16 MiB), the steady flows still see more sharing than the steps do.
  const System& four = system_named("dgx_h100_x4_ndr.yaml");
  for (const auto& [bytes, tolerance] : {std::pair{16.0 * kMiB, 0.3}, {128.0 * kMiB, 0.1}, {1.0 * kGiB, 0.05}}) {
    CollectiveTuning slow = CollectiveTuning::load(), fast = slow;
    slow.fast_path_min_sends = UINT64_MAX;
    fast.fast_path_min_sends = 1;
    const CollectivePoint point{CollectiveOp::all_reduce, 16, bytes, CollectiveAlgorithm::ring, Protocol::simple};
    const CollectiveResult steps = simulate_collective(four, slow, point);
    const CollectiveResult flows = simulate_collective(four, fast, point);
    INFO(bytes << " B");
    CHECK(static_cast<double>(flows.time) == Approx(static_cast<double>(steps.time)).epsilon(tolerance));
  }
}

TEST_CASE("two jobs sharing an oversubscribed spine each slow down by the sharing factor",
          "[network][collective][contention]") {
  const double bytes = 512.0 * kMiB;
  auto run = [&](bool both) {
    Engine engine;
    TwoLeafRouter router;
    FlowNetwork network(engine, std::vector<Bandwidth>(TwoLeafRouter::kLinks, Bandwidth{100e9}));
    CollectiveRunner runner(engine, network, router, CollectiveTuning::load());
    TimePs a = -1, b = -1;
    // Each job: a 2-rank all-reduce across the spine.
    runner.start({CollectiveOp::all_reduce, {0, 4}, bytes}, [&] { a = engine.now(); });
    if (both) runner.start({CollectiveOp::all_reduce, {1, 5}, bytes}, [&] { b = engine.now(); });
    engine.run();
    return std::pair{a, b};
  };
  const auto [alone, unused] = run(false);
  const auto [first, second] = run(true);
  // The spine carries both jobs' traffic in each direction: each gets half.
  CHECK(static_cast<double>(first) / alone == Approx(2.0).epsilon(0.03));
  CHECK(static_cast<double>(second) / alone == Approx(2.0).epsilon(0.03));
}

TEST_CASE("an all-to-all on 2 DGX H100 nodes is limited by the NICs, not NVLink", "[network][collective][a2a]") {
  const System& system = test::system_named("dgx_h100_x4_ndr.yaml");
  const double bytes = 1.0 * kGiB;
  const CollectiveResult r =
      simulate_collective(system, CollectiveTuning::load(), {CollectiveOp::all_to_all, 16, bytes});
  CHECK(r.choice.algorithm == CollectiveAlgorithm::direct);
  // Half of each rank's data leaves the node, through its own 400 Gb/s NIC.
  const CollectiveTopology facts = describe_collective_topology(system);
  const double nic_bound = 0.5 * bytes / facts.inter_bytes_per_s / CollectiveTuning::load().protocol_efficiency;
  const double nvlink_bound = 7.0 / 16.0 * bytes / facts.intra_bytes_per_s;
  const double t = ps_to_seconds(r.time);
  CHECK(t == Approx(nic_bound).epsilon(0.05));
  CHECK(t > 5 * nvlink_bound);
}

TEST_CASE("the tuner picks NVLS for large all-reduces on H100, LL for small, direct for all-to-all",
          "[network][collective][choice]") {
  const System& h100 = test::system_named("dgx_h100.yaml");
  const CollectiveTuning tuning = CollectiveTuning::load();
  auto choice = [&](const System& s, CollectiveOp op, int gpus, double bytes) {
    return simulate_collective(s, tuning, {op, gpus, bytes}).choice;
  };
  CHECK(choice(h100, CollectiveOp::all_reduce, 8, 1.0 * kGiB).algorithm == CollectiveAlgorithm::nvls);
  const CollectiveChoice small = choice(h100, CollectiveOp::all_reduce, 8, 64.0 * kKiB);
  CHECK(small.algorithm == CollectiveAlgorithm::ring);
  CHECK(small.protocol == Protocol::ll);
  CHECK(choice(h100, CollectiveOp::all_gather, 8, 1.0 * kGiB).protocol == Protocol::simple);
  CHECK(choice(h100, CollectiveOp::all_to_all, 8, 1.0 * kGiB).algorithm == CollectiveAlgorithm::direct);
  // A100's NVSwitch cannot reduce: no NVLS there.
  CHECK(choice(test::system_named("dgx_a100.yaml"), CollectiveOp::all_reduce, 8, 1.0 * kGiB).algorithm ==
        CollectiveAlgorithm::ring);
  // Across nodes NVLS is out; an explicit override still wins.
  const System& four = test::system_named("dgx_h100_x4_ndr.yaml");
  CHECK(choice(four, CollectiveOp::all_reduce, 32, 1.0 * kGiB).algorithm != CollectiveAlgorithm::nvls);
  CHECK(simulate_collective(four, tuning, {CollectiveOp::all_reduce, 32, 1.0 * kGiB, CollectiveAlgorithm::tree})
            .choice.algorithm == CollectiveAlgorithm::tree);
  CHECK_THROWS_AS(
      simulate_collective(four, tuning, {CollectiveOp::all_reduce, 32, 1.0 * kGiB, CollectiveAlgorithm::nvls}),
      std::invalid_argument);
}

TEST_CASE("LL gets a quarter of Simple's share when it reduces or spans nodes, a third otherwise",
          "[network][collective][protocol]") {
  const CollectiveTuning t = CollectiveTuning::load();
  const double simple = t.protocol(Protocol::simple, ProtocolUse{}).efficiency;
  const System& one = test::system_named("dgx_h100.yaml");
  const System& four = test::system_named("dgx_h100_x4_ndr.yaml");
  auto ll = [&](const System& system, CollectiveOp op, int gpus) {
    const CollectiveTopology facts = describe_collective_topology(system);
    const CollectiveRequest r{op, {system.gpus().begin(), system.gpus().begin() + gpus}, 1e6};
    const ProtocolUse use = protocol_use(r, shape_of(r.members, &facts), &facts, t);
    return t.protocol(Protocol::ll, use).efficiency / simple;
  };
  CHECK(ll(one, CollectiveOp::all_reduce, 8) == Approx(0.25).epsilon(0.01));
  CHECK(ll(one, CollectiveOp::reduce, 8) == Approx(0.25).epsilon(0.01));
  CHECK(ll(one, CollectiveOp::all_gather, 8) == Approx(1.0 / 3).epsilon(0.01));
  CHECK(ll(one, CollectiveOp::reduce_scatter, 8) == Approx(1.0 / 3).epsilon(0.01));
  CHECK(ll(four, CollectiveOp::all_gather, 16) == Approx(0.25).epsilon(0.01));
  // The other protocols do not depend on the collective.
  CHECK(t.protocol(Protocol::ll128, ProtocolUse{false}).efficiency ==
        t.protocol(Protocol::ll128, ProtocolUse{true}).efficiency);
}

TEST_CASE("A100's own reduce rate caps a reducing collective inside a node, not a gather", "[network][collective]") {
  const CollectiveTuning tuning = CollectiveTuning::load();
  auto busbw = [&](const char* system, CollectiveOp op) {
    return simulate_collective(test::system_named(system), tuning, {op, 8, 8.0 * kGiB, CollectiveAlgorithm::ring})
        .busbw_bytes_per_s;
  };
  // Every listed model is a catalogue GPU: a misspelt id would cap nothing.
  const DeviceCatalogue catalogue = DeviceCatalogue::load();
  for (const auto& [model, rate] : tuning.reduce_bytes_per_s) CHECK(catalogue.find_gpu(model) != nullptr);
  const double cap = tuning.reduce_bytes_per_s.at("a100-sxm-80gb");
  const double a100_ar = busbw("dgx_a100.yaml", CollectiveOp::all_reduce);
  const double a100_rs = busbw("dgx_a100.yaml", CollectiveOp::reduce_scatter);
  const double a100_ag = busbw("dgx_a100.yaml", CollectiveOp::all_gather);
  CHECK(a100_ar <= cap);
  CHECK(a100_ar == Approx(cap).epsilon(0.01));
  CHECK(a100_rs == Approx(cap).epsilon(0.01));
  // The gather adds nothing, so only the wire bounds it.
  CHECK(a100_ag > 1.04 * cap);
  // In a mixed cluster the cap follows each group's own GPUs.
  const System& mixed = test::system_named("mixed_h100_a100_ndr.yaml");
  const CollectiveTopology facts = describe_collective_topology(mixed);
  auto cap_of = [&](std::size_t first, std::size_t count) {
    const std::vector<EndpointId> members(mixed.gpus().begin() + first, mixed.gpus().begin() + first + count);
    const CollectiveRequest r{CollectiveOp::all_reduce, members, 1e9};
    return protocol_use(r, shape_of(members, &facts), &facts, tuning).share_cap;
  };
  CHECK(cap_of(0, 8) == 1.0);   // an H100 node
  CHECK(cap_of(16, 8) < 1.0);   // an A100 node
  CHECK(cap_of(0, 32) == 1.0);  // across nodes the NICs bound it
  CHECK(mixed.part(mixed.gpus()[16]).model == "a100-sxm-80gb");
  // Hopper reduces as fast as its links carry: no gap between the two.
  CHECK(busbw("dgx_h100.yaml", CollectiveOp::all_gather) ==
        Approx(busbw("dgx_h100.yaml", CollectiveOp::reduce_scatter)).epsilon(0.005));
}

TEST_CASE("multi-node algorithms run on 4 DGX H100 nodes with sensible bus bandwidth",
          "[network][collective][multinode]") {
  const System& four = test::system_named("dgx_h100_x4_ndr.yaml");
  const CollectiveTuning tuning = CollectiveTuning::load();
  const double nic = describe_collective_topology(four).inter_bytes_per_s / 1e9;
  const double intra = describe_collective_topology(four).intra_bytes_per_s / 1e9;
  for (CollectiveAlgorithm a : {CollectiveAlgorithm::ring, CollectiveAlgorithm::hierarchical}) {
    const CollectiveResult r = simulate_collective(four, tuning, {CollectiveOp::all_reduce, 32, 1.0 * kGiB, a});
    INFO(to_string(a) << " busbw " << r.busbw_bytes_per_s / 1e9 << " GB/s; NIC " << nic << " GB/s");
    // Eight rails: a node's eight NICs carry what its eight GPUs send across,
    // so the bus rate can approach 8 x one NIC, and never the NVLink rate.
    CHECK(r.busbw_bytes_per_s / 1e9 > 0.4 * 8 * nic);
    CHECK(r.busbw_bytes_per_s / 1e9 < std::min(8 * nic, intra));
  }
  const CollectiveResult sharp = simulate_collective(
      four, tuning, {CollectiveOp::all_reduce, 32, 1.0 * kGiB, CollectiveAlgorithm::sharp, Protocol::automatic, true});
  const CollectiveResult hierarchical =
      simulate_collective(four, tuning, {CollectiveOp::all_reduce, 32, 1.0 * kGiB, CollectiveAlgorithm::hierarchical});
  // In-network reduction sends each share across the fabric once instead of 2(N-1)/N times.
  CHECK(sharp.time < hierarchical.time);
  // The tree runs one pair of trees per NIC, as NCCL's channels do: all
  // eight NICs carry it (two trees' heads could not pass 2 x 2 NICs).
  const CollectiveResult tree =
      simulate_collective(four, tuning, {CollectiveOp::all_reduce, 32, 1.0 * kGiB, CollectiveAlgorithm::tree});
  CHECK(tree.busbw_bytes_per_s / 1e9 > 2 * 2 * nic);
  CHECK(tree.busbw_bytes_per_s / 1e9 < intra);
}

TEST_CASE("across nodes the tree crosses on every rail, each NIC carrying an equal share",
          "[network][collective][multinode]") {
  const System& four = system_named("dgx_h100_x4_ndr.yaml");
  const CollectiveTuning tuning = CollectiveTuning::load();
  const CollectiveTopology facts = describe_collective_topology(four);
  const std::vector<EndpointId> members(four.gpus().begin(), four.gpus().begin() + 16);
  const CollectiveRequest r{CollectiveOp::all_reduce, members, 256.0 * kMiB, CollectiveAlgorithm::tree};
  const TransferPlan plan = plan_tree({r, tuning, tuning.protocol(Protocol::simple, ProtocolUse{}), &facts});
  std::map<EndpointId, double> across;  // bytes each GPU sends to the other node
  for (const Transfer& t : plan.transfers) {
    if (crosses_nodes(&facts, t.from, t.to)) {
      across[t.from] += t.wire_bytes;
      // Between nodes a tree stays on one rail: local rank l to local rank l.
      auto index = [&](EndpointId e) { return std::find(members.begin(), members.end(), e) - members.begin(); };
      CHECK(index(t.to) == (index(t.from) + 8) % 16);
    }
  }
  REQUIRE(across.size() == 16);
  for (const auto& [gpu, bytes] : across) CHECK(bytes == Approx(across.begin()->second));
}

TEST_CASE("per-job algorithm overrides parse from YAML with located errors", "[network][collective][config]") {
  const CollectiveOverrides o =
      parse_collective_overrides(ConfigNode::load_string("{all_reduce: ring, all_to_all: direct}", "job.yaml"));
  CHECK(o.for_op(CollectiveOp::all_reduce) == CollectiveAlgorithm::ring);
  CHECK(o.for_op(CollectiveOp::all_gather) == CollectiveAlgorithm::automatic);
  CollectiveRequest r{CollectiveOp::all_to_all, {0, 1}, 1e6};
  o.apply(r);
  CHECK(r.algorithm == CollectiveAlgorithm::direct);
  CHECK_THROWS_WITH(parse_collective_overrides(ConfigNode::load_string("{all_reduce: spiral}", "job.yaml")),
                    Catch::Contains("job.yaml:1") && Catch::Contains("halving_doubling"));
  CHECK_THROWS_WITH(parse_collective_overrides(ConfigNode::load_string("{allreduce: ring}", "job.yaml")),
                    Catch::Contains("all_reduce") && Catch::Contains("sharp"));
}

TEST_CASE("an override naming an algorithm that never runs its op lists the ones that do",
          "[network][collective][config]") {
  CHECK_THROWS_WITH(parse_collective_overrides(ConfigNode::load_string("{all_to_all: ring}", "job.yaml")),
                    Catch::Contains("job.yaml:1") && Catch::Contains("ring cannot run all_to_all") &&
                        Catch::EndsWith("valid for it: auto or direct"));
  CHECK_THROWS_WITH(parse_collective_overrides(ConfigNode::load_string("{all_gather: tree}", "job.yaml")),
                    Catch::Contains("valid for it: auto, ring, direct, halving_doubling or master"));
  CHECK_NOTHROW(parse_collective_overrides(ConfigNode::load_string("{broadcast: ring, reduce: master}", "job.yaml")));
}

TEST_CASE("sharp: true in the overrides turns on in-fabric reduction, it is off by default",
          "[network][collective][config]") {
  CHECK_FALSE(parse_collective_overrides(ConfigNode::load_string("{all_reduce: ring}", "job.yaml")).sharp);
  const CollectiveOverrides o = parse_collective_overrides(ConfigNode::load_string("{sharp: true}", "job.yaml"));
  CHECK(o.sharp);
  CHECK(o.for_op(CollectiveOp::all_reduce) == CollectiveAlgorithm::automatic);
  CHECK_THROWS_WITH(parse_collective_overrides(ConfigNode::load_string("{sharp: 2}", "job.yaml")),
                    Catch::Contains("job.yaml:1") && Catch::Contains("true or false"));
}
