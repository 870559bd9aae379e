#include "models/network/flow_network.hpp"

#include <catch2/catch.hpp>

#include "tests/network/star_router.hpp"

using namespace simctl;
using simctl::test::StarRouter;

namespace {

constexpr double kGBps = 1e9;

std::vector<Bandwidth> uniform(int links, double bytes_per_s) {
  return std::vector<Bandwidth>(static_cast<std::size_t>(links), Bandwidth{bytes_per_s});
}

Path path_of(std::vector<LinkId> links, TimePs latency = 0) { return Path{std::move(links), latency, {}}; }

}  // namespace

TEST_CASE("a flow alone gets the whole link", "[network][flow]") {
  Engine engine;
  FlowNetwork net(engine, uniform(2, 100 * kGBps));
  TimePs done = -1;
  net.start(path_of({0}), 1e9, [&] { done = engine.now(); });
  engine.run();
  CHECK(done == 10 * kPsPerMs);  // 1 GB at 100 GB/s
  CHECK(net.bytes_carried(0) == Approx(1e9));
  CHECK(net.busy_time(0) == 10 * kPsPerMs);
  CHECK(net.utilisation(0) == Approx(1.0));
  CHECK(net.bytes_carried(1) == 0.0);
}

TEST_CASE("a capped flow moves at its cap and the link carries only its bytes", "[network][flow]") {
  Engine engine;
  FlowNetwork net(engine, uniform(1, 100 * kGBps));
  TimePs capped = -1, other = -1;
  net.start(
      path_of({0}), 1e9, [&] { capped = engine.now(); }, {}, 25 * kGBps);
  engine.run();
  CHECK(capped == 40 * kPsPerMs);  // 1 GB at its own 25 GB/s
  CHECK(net.bytes_carried(0) == Approx(1e9));
  CHECK(net.utilisation(0) == Approx(0.25));
  // Beside an uncapped flow it takes its cap, the other the rest.
  net.start(
      path_of({0}), 1e9, [&] { capped = engine.now(); }, {}, 25 * kGBps);
  net.start(path_of({0}), 1.5e9, [&] { other = engine.now(); });
  engine.run();
  CHECK(capped == 80 * kPsPerMs);
  CHECK(other == 60 * kPsPerMs);  // 1.5 GB at 75 GB/s, then alone: 20 ms x 75 = 1.5 GB
}

TEST_CASE("two flows on one link each get half and finish at twice the single time", "[network][flow]") {
  Engine engine;
  FlowNetwork net(engine, uniform(1, 100 * kGBps));
  TimePs a = -1, b = -1;
  const FlowId fa = net.start(path_of({0}), 1e9, [&] { a = engine.now(); });
  const FlowId fb = net.start(path_of({0}), 1e9, [&] { b = engine.now(); });
  CHECK(net.rate_of(fa) == Approx(50 * kGBps));
  CHECK(net.rate_of(fb) == Approx(50 * kGBps));
  engine.run();
  CHECK(a == 20 * kPsPerMs);
  CHECK(b == 20 * kPsPerMs);
  CHECK(net.flows_started() == 2);
}

TEST_CASE("max-min: a flow bottlenecked elsewhere leaves the rest to the other", "[network][flow]") {
  // Links: 0 = 100 GB/s shared, 1 = 25 GB/s, 2 = 100 GB/s.
  // f0 crosses 0 and 1 (bottleneck 25); f1 crosses 0 and 2 and takes 75.
  Engine engine;
  FlowNetwork net(engine, {Bandwidth{100 * kGBps}, Bandwidth{25 * kGBps}, Bandwidth{100 * kGBps}});
  const FlowId f0 = net.start(path_of({0, 1}), 1e9, [] {});
  const FlowId f1 = net.start(path_of({0, 2}), 1e9, [] {});
  CHECK(net.rate_of(f0) == Approx(25 * kGBps));
  CHECK(net.rate_of(f1) == Approx(75 * kGBps));
  engine.run();
}

TEST_CASE("path latency is added after the bytes drain", "[network][flow]") {
  Engine engine;
  FlowNetwork net(engine, uniform(2, 100 * kGBps));
  TimePs drained = -1, done = -1;
  net.start(
      path_of({0, 1}, 3 * kPsPerUs), 1e6, [&] { done = engine.now(); }, [&] { drained = engine.now(); });
  engine.run();
  CHECK(drained == 10 * kPsPerUs);
  CHECK(done == 13 * kPsPerUs);
}

TEST_CASE("zero-byte flows complete after the latency alone", "[network][flow]") {
  Engine engine;
  FlowNetwork net(engine, uniform(1, 100 * kGBps));
  TimePs done = -1;
  net.start(path_of({0}, 2 * kPsPerUs), 0.0, [&] { done = engine.now(); });
  engine.run();
  CHECK(done == 2 * kPsPerUs);
  CHECK(net.busy_time(0) == 0);
}

TEST_CASE("rates re-expand when a flow ends", "[network][flow]") {
  // A 1 GB and a 3 GB flow share 100 GB/s: both run at 50 until the small one
  // ends at 20 ms (1 GB moved each); the big one then has 2 GB left at 100 GB/s.
  Engine engine;
  FlowNetwork net(engine, uniform(1, 100 * kGBps));
  TimePs small = -1, big = -1;
  net.start(path_of({0}), 1e9, [&] { small = engine.now(); });
  const FlowId fb = net.start(path_of({0}), 3e9, [&] { big = engine.now(); });
  engine.run_until(20 * kPsPerMs + 1);
  CHECK(small == 20 * kPsPerMs);
  CHECK(net.rate_of(fb) == Approx(100 * kGBps));
  engine.run();
  CHECK(big == Approx(40 * kPsPerMs).margin(2));
  CHECK(net.bytes_carried(0) == Approx(4e9));
  CHECK(net.rate_recomputations() >= 3);
}

TEST_CASE("a flow joining later slows the running one from then on", "[network][flow]") {
  Engine engine;
  FlowNetwork net(engine, uniform(1, 100 * kGBps));
  TimePs first = -1, second = -1;
  net.start(path_of({0}), 2e9, [&] { first = engine.now(); });
  engine.schedule_at(10 * kPsPerMs, [&] { net.start(path_of({0}), 0.5e9, [&] { second = engine.now(); }); });
  engine.run();
  // 1 GB alone by 10 ms; then 50/50: the 0.5 GB joiner ends at 20 ms; the rest (0.5 GB) at 100 -> 25 ms.
  CHECK(second == Approx(20 * kPsPerMs).margin(2));
  CHECK(first == Approx(25 * kPsPerMs).margin(2));
  CHECK(net.busy_time(0) == Approx(25 * kPsPerMs).margin(2));
}

TEST_CASE("flows on disjoint links do not disturb each other", "[network][flow]") {
  Engine engine;
  StarRouter star(8, 0);
  FlowNetwork net(engine, uniform(star.link_count(), 100 * kGBps));
  std::vector<TimePs> done(8, -1);
  for (int i = 0; i < 8; ++i) {
    net.start(star.route(i, (i + 1) % 8), 1e9, [&, i] { done[i] = engine.now(); });
  }
  engine.run();
  for (TimePs t : done) CHECK(t == 10 * kPsPerMs);
}

TEST_CASE("incast onto one down link shares it among all senders", "[network][flow]") {
  Engine engine;
  StarRouter star(8, 0);
  FlowNetwork net(engine, uniform(star.link_count(), 100 * kGBps));
  std::vector<TimePs> done;
  for (int i = 1; i < 8; ++i) net.start(star.route(i, 0), 1e9, [&] { done.push_back(engine.now()); });
  engine.run();
  REQUIRE(done.size() == 7);
  for (TimePs t : done) CHECK(t == Approx(70 * kPsPerMs).margin(8));
  CHECK(net.utilisation(StarRouter::down(0)) == Approx(1.0).epsilon(1e-6));
  CHECK(net.utilisation(StarRouter::up(1)) == Approx(1.0 / 7).epsilon(1e-6));
}

TEST_CASE("flow network runs are deterministic", "[network][flow]") {
  auto run_once = [] {
    Engine engine;
    StarRouter star(8, 100 * kPsPerNs);
    FlowNetwork net(engine, uniform(star.link_count(), 100 * kGBps));
    std::vector<TimePs> done(64, -1);
    for (int k = 0; k < 64; ++k) {
      const int from = (k * 5) % 8, to = (k * 3 + 1) % 8;
      engine.schedule_at(k * 7 * kPsPerUs, [&, k, from, to] {
        net.start(star.route(from, to), 1e6 * (1 + k % 5), [&, k] { done[k] = engine.now(); });
      });
    }
    engine.run();
    return done;
  };
  CHECK(run_once() == run_once());
}

TEST_CASE("flows that reuse drained flows' storage keep their own ids and rates", "[network][flow]") {
  Engine engine;
  FlowNetwork net(engine, uniform(2, 100 * kGBps));
  // Waves of flows: each wave starts after the previous one drained, so its
  // flows take over the freed storage; ids still grow and drained ids read 0.
  std::vector<FlowId> previous;
  for (int wave = 0; wave < 5; ++wave) {
    engine.schedule_at(wave * 100 * kPsPerMs, [&, wave] {
      for (FlowId id : previous) CHECK(net.rate_of(id) == 0.0);
      previous.clear();
      for (int k = 0; k <= wave; ++k) previous.push_back(net.start(path_of({LinkId(k % 2)}), 1e9, [] {}));
      CHECK(net.active_flows() == static_cast<std::size_t>(wave + 1));
      for (std::size_t k = 1; k < previous.size(); ++k) CHECK(previous[k] > previous[k - 1]);
      const int on_link0 = (wave + 2) / 2;
      CHECK(net.rate_of(previous[0]) == Approx(100 * kGBps / on_link0));
    });
  }
  engine.run();
  CHECK(net.active_flows() == 0);
  CHECK(net.flows_started() == 15);
}

TEST_CASE("flows alone on their links run at their slowest link, as water-filling gives", "[network][flow]") {
  Engine engine;
  const std::vector<Bandwidth> capacity{{100 * kGBps}, {30 * kGBps}, {70 * kGBps}, {50 * kGBps}, {20 * kGBps}};
  FlowNetwork net(engine, capacity);
  const std::vector<LinkId> ring_a{0, 1}, ring_b{2, 3}, alone{4};
  net.begin_batch();
  const FlowId a = net.start(path_of(ring_a), 1e9, {});
  const FlowId b = net.start(path_of(ring_b), 1e9, {});
  const FlowId c = net.start(path_of(alone), 1e9, {});
  net.end_batch();
  std::vector<double> bytes_per_s;
  for (Bandwidth bw : capacity) bytes_per_s.push_back(bw.bytes_per_s);
  const auto filled = max_min_fair_rates({&ring_a, &ring_b, &alone}, bytes_per_s);
  CHECK(net.rate_of(a) == 30 * kGBps);
  CHECK(net.rate_of(b) == 50 * kGBps);
  CHECK(net.rate_of(c) == 20 * kGBps);
  CHECK(net.rate_of(a) == filled[0]);
  CHECK(net.rate_of(b) == filled[1]);
  CHECK(net.rate_of(c) == filled[2]);
  // A flow joining link 1 makes the component shared: both halve it there.
  const FlowId d = net.start(path_of({1}), 1e9, {});
  CHECK(net.rate_of(a) == 15 * kGBps);
  CHECK(net.rate_of(d) == 15 * kGBps);
  engine.run();
}

namespace flow_network_test_detail {

struct CountOnlyRun {
  std::vector<TimePs> done;
  double pool_bytes = 0;
  TimePs pool_busy = 0;
  std::uint64_t recomputes = 0;
};

// Two feeder links (0, 1; 40 and 60 GB/s) into a pool (2; 100 GB/s, so it
// can never limit them), and a third link (3) shared by the flows of feeder
// 1; `count_only` marks the pool.
CountOnlyRun run_pool(bool count_only) {
  Engine engine;
  FlowNetwork net(engine,
                  {Bandwidth{40 * kGBps}, Bandwidth{60 * kGBps}, Bandwidth{100 * kGBps}, Bandwidth{30 * kGBps}});
  if (count_only) net.count_only(2);
  CountOnlyRun out;
  out.done.assign(3, -1);
  net.start(path_of({0, 2}), 2e9, [&] { out.done[0] = engine.now(); });
  net.start(path_of({1, 2, 3}), 1e9, [&] { out.done[1] = engine.now(); });
  net.start(path_of({1, 3}), 1e9, [&] { out.done[2] = engine.now(); });
  engine.run();
  out.pool_bytes = net.bytes_carried(2);
  out.pool_busy = net.busy_time(2);
  out.recomputes = net.rate_recomputations();
  return out;
}

}  // namespace flow_network_test_detail

TEST_CASE("a count-only link shares nothing but counts its bytes and busy time", "[network][flow]") {
  const auto shared = flow_network_test_detail::run_pool(false);
  const auto counted = flow_network_test_detail::run_pool(true);
  // A link that can never bind changes no rate: the same times and bytes.
  CHECK(counted.done == shared.done);
  CHECK(counted.done[0] == 50 * kPsPerMs);  // 2 GB at feeder 0's 40 GB/s
  CHECK(counted.pool_bytes == Approx(3e9));
  CHECK(shared.pool_bytes == Approx(3e9));
  CHECK(counted.pool_busy == shared.pool_busy);
  // Busy until the last flow through it ends: flow 1, at half of link 3's 30 GB/s.
  CHECK(counted.pool_busy == counted.done[1]);
  CHECK(counted.done[1] == Approx(1e9 / 15e9 * 1e12).epsilon(1e-9));
}

TEST_CASE("marking a link count-only once flows run is refused", "[network][flow]") {
  Engine engine;
  FlowNetwork net(engine, uniform(2, 100 * kGBps));
  net.start(path_of({0}), 1e9, [] {});
  CHECK_THROWS_AS(net.count_only(1), std::logic_error);
}

TEST_CASE("a flow over count-only links alone is refused: nothing would bound its rate", "[network][flow]") {
  Engine engine;
  FlowNetwork net(engine, uniform(2, 100 * kGBps), {1});
  CHECK_THROWS_AS(net.start(path_of({1}), 1e9, [] {}), std::logic_error);
  net.start(path_of({0, 1}), 1e9, [] {});  // beside a link that shares, it runs
  engine.run();
  CHECK(net.bytes_carried(1) == Approx(1e9));
}

TEST_CASE("a connection spread over two links moves at their summed rate, each carrying its share", "[network][flow]") {
  Engine engine;
  // Link 0 (200 GB/s) feeds two 100 GB/s uplinks, links 1 and 2.
  FlowNetwork net(engine, {Bandwidth{200 * kGBps}, Bandwidth{100 * kGBps}, Bandwidth{100 * kGBps}});
  const Path spread{{0, 1, 2}, 0, {1.0, 0.5, 0.5}};
  TimePs done = -1;
  const FlowId id = net.start(spread, 2e9, [&] { done = engine.now(); });
  CHECK(net.rate_of(id) == Approx(200 * kGBps));
  engine.run();
  CHECK(done == 10 * kPsPerMs);
  CHECK(net.bytes_carried(0) == Approx(2e9));
  CHECK(net.bytes_carried(1) == Approx(1e9));
  CHECK(net.bytes_carried(2) == Approx(1e9));
  // Beside a plain flow on link 1, both rise to r with r + r/2 = 100 GB/s:
  // the connection keeps pace with its slower queue pair.
  const FlowId spread_id = net.start(spread, 2e9, [] {});
  const FlowId plain_id = net.start(path_of({1}), 1e9, [] {});
  CHECK(net.rate_of(spread_id) == Approx(200.0 / 3 * kGBps));
  CHECK(net.rate_of(plain_id) == Approx(200.0 / 3 * kGBps));
  engine.run();
  CHECK(net.bytes_carried(1) == Approx(1e9 + 1e9 + 1e9));
}

TEST_CASE("a spread path needs one share per link above 0 and at most 1", "[network][flow]") {
  Engine engine;
  FlowNetwork net(engine, uniform(2, 100 * kGBps));
  CHECK_THROWS_AS(net.start(Path{{0, 1}, 0, {0.5}}, 1e9, [] {}), std::invalid_argument);
  CHECK_THROWS_AS(net.start(Path{{0, 1}, 0, {0.5, 0.0}}, 1e9, [] {}), std::invalid_argument);
  CHECK_THROWS_AS(net.start(Path{{0, 1}, 0, {1.5, 0.5}}, 1e9, [] {}), std::invalid_argument);
  CHECK(net.active_flows() == 0);
}
