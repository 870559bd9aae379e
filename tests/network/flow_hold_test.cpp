// Held flows (FlowNetwork::start_held) must give exactly what ordinary flows
// give: the same drain times and the same bytes and busy time per link,
// whether they stay alone or another flow arrives on their links.
#include <catch2/catch.hpp>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include "models/network/flow_network.hpp"

using namespace simctl;

namespace flow_hold_test {

constexpr double kHoldGBps = 1e9;
constexpr double kHoldNoCap = std::numeric_limits<double>::infinity();

// The drain time of each flow, by its index in the set.
class DrainLog final : public HoldOwner {
 public:
  explicit DrainLog(Engine& engine) : engine_(engine) {}
  void held_flow_drained(std::uint32_t, std::uint32_t flow, TimePs at) override {
    drained[flow] = at;
    told[flow] = engine_.now();
  }
  std::map<std::uint32_t, TimePs> drained;
  std::map<std::uint32_t, TimePs> told;

 private:
  Engine& engine_;
};

std::vector<Bandwidth> capacities() {
  return {Bandwidth{100 * kHoldGBps}, Bandwidth{40 * kHoldGBps}, Bandwidth{80 * kHoldGBps}};
}

// Flows to start as one set: held in one network, ordinary in the other.
struct FlowSet {
  std::vector<Path> paths;
  std::vector<double> bytes;
  std::vector<double> caps;
  std::vector<const Path*> pointers() const {
    std::vector<const Path*> out;
    for (const Path& path : paths) out.push_back(&path);
    return out;
  }
};

// Two flows, on link 0 and on link 1, each with no cap of its own.
FlowSet on_links_0_and_1(double bytes0, double bytes1) {
  return FlowSet{{Path{{0}, 0, {}}, Path{{1}, 0, {}}}, {bytes0, bytes1}, {kHoldNoCap, kHoldNoCap}};
}

// The same flows started now as one ordinary batch (with whatever
// `also_in_batch` starts beside them); their drains by index fill the map as
// they happen.
std::shared_ptr<std::map<std::uint32_t, TimePs>> start_ordinary(Engine& engine, FlowNetwork& net, const FlowSet& set,
                                                                const std::function<void()>& also_in_batch = {}) {
  auto drains = std::make_shared<std::map<std::uint32_t, TimePs>>();
  net.begin_batch();
  for (std::uint32_t i = 0; i < set.paths.size(); ++i) {
    net.start(
        set.paths[i], set.bytes[i], {}, [&engine, drains, i] { (*drains)[i] = engine.now(); }, set.caps[i]);
  }
  if (also_in_batch) also_in_batch();
  net.end_batch();
  return drains;
}

struct Pair {
  Engine held_engine, plain_engine;
  FlowNetwork held{held_engine, capacities()};
  FlowNetwork plain{plain_engine, capacities()};
};

void check_same_links(const FlowNetwork& a, const FlowNetwork& b) {
  for (LinkId link = 0; link < a.link_count(); ++link) {
    CHECK(a.bytes_carried(link) == b.bytes_carried(link));
    CHECK(a.busy_time(link) == b.busy_time(link));
  }
}

}  // namespace flow_hold_test

using flow_hold_test::capacities;
using flow_hold_test::check_same_links;
using flow_hold_test::DrainLog;
using flow_hold_test::FlowSet;
using flow_hold_test::kHoldGBps;
using flow_hold_test::kHoldNoCap;
using flow_hold_test::on_links_0_and_1;
using flow_hold_test::Pair;
using flow_hold_test::start_ordinary;

TEST_CASE("flows held alone drain when ordinary flows would and leave the same link counts", "[network][flow]") {
  Pair pair;
  const FlowSet set{{Path{{0}, 0, {}}, Path{{1, 2}, 0, {}}}, {1e9, 3e9}, {kHoldNoCap, 25 * kHoldGBps}};
  DrainLog log(pair.held_engine);
  REQUIRE(pair.held.start_held(set.pointers(), set.bytes, set.caps, log, 7));
  CHECK(pair.held.active_flows() == 0);  // not in the sharing machinery
  const auto plain = start_ordinary(pair.plain_engine, pair.plain, set);
  pair.held_engine.run_until(50 * kPsPerMs);
  pair.plain_engine.run_until(50 * kPsPerMs);
  check_same_links(pair.held, pair.plain);  // one flow drained, one running
  pair.held_engine.run();
  pair.plain_engine.run();

  CHECK(log.drained == *plain);
  CHECK(log.drained.at(0) == 10 * kPsPerMs);   // 1 GB at 100 GB/s
  CHECK(log.drained.at(1) == 120 * kPsPerMs);  // 3 GB at its 25 GB/s cap
  check_same_links(pair.held, pair.plain);
  CHECK(pair.held.flows_started() == pair.plain.flows_started());
}

TEST_CASE("a flow onto a held link shares it as if the held flows had been ordinary", "[network][flow]") {
  Pair pair;
  const FlowSet set = on_links_0_and_1(2e9, 1e9);
  DrainLog log(pair.held_engine);
  REQUIRE(pair.held.start_held(set.pointers(), set.bytes, set.caps, log, 0));
  TimePs held_newcomer = -1, plain_newcomer = -1;
  // At 5 ms a second flow joins link 0 (and crosses link 2).
  pair.held_engine.schedule_at(5 * kPsPerMs, [&] {
    pair.held.start(Path{{2, 0}, 0, {}}, 1e9, [&] { held_newcomer = pair.held_engine.now(); });
  });
  pair.plain_engine.schedule_at(5 * kPsPerMs, [&] {
    pair.plain.start(Path{{2, 0}, 0, {}}, 1e9, [&] { plain_newcomer = pair.plain_engine.now(); });
  });
  const auto plain = start_ordinary(pair.plain_engine, pair.plain, set);
  pair.held_engine.run();
  pair.plain_engine.run();

  CHECK(log.drained == *plain);
  CHECK(held_newcomer == plain_newcomer);
  CHECK(log.drained.at(0) > 20 * kPsPerMs);  // slowed by the newcomer: alone it took 20 ms
  check_same_links(pair.held, pair.plain);
}

TEST_CASE("a held flow already drained is reported at its own drain when its set turns ordinary", "[network][flow]") {
  Pair pair;
  const FlowSet set = on_links_0_and_1(1e9, 4e9);  // 10 ms and 100 ms alone
  DrainLog log(pair.held_engine);
  REQUIRE(pair.held.start_held(set.pointers(), set.bytes, set.caps, log, 0));
  pair.held_engine.schedule_at(30 * kPsPerMs, [&] { pair.held.start(Path{{1}, 0, {}}, 1e9, {}); });
  pair.plain_engine.schedule_at(30 * kPsPerMs, [&] { pair.plain.start(Path{{1}, 0, {}}, 1e9, {}); });
  const auto plain = start_ordinary(pair.plain_engine, pair.plain, set);
  pair.held_engine.run();
  pair.plain_engine.run();

  CHECK(log.drained == *plain);
  CHECK(log.drained.at(0) == 10 * kPsPerMs);
  CHECK(log.told.at(0) == 30 * kPsPerMs);  // learnt when the set was broken up
  check_same_links(pair.held, pair.plain);
}

TEST_CASE("flows are not held where they would not run alone", "[network][flow]") {
  Engine engine;
  FlowNetwork net(engine, capacities());
  DrainLog log(engine);
  const Path on0{{0}, 0, {}}, on01{{0, 1}, 0, {}}, on2{{2}, 0, {}};
  const std::vector<double> one{1e9}, two{1e9, 1e9}, no_cap{kHoldNoCap}, no_caps{kHoldNoCap, kHoldNoCap};
  // Two of the set through one link.
  CHECK_FALSE(net.start_held(std::vector<const Path*>{&on0, &on01}, two, no_caps, log, 0));
  // A link already carrying a flow.
  net.start(on2, 1e9, {});
  CHECK_FALSE(net.start_held(std::vector<const Path*>{&on2}, one, no_cap, log, 0));
  // A batch with flows not yet placed on their links.
  net.begin_batch();
  net.start(on0, 1e9, {});
  CHECK_FALSE(net.start_held(std::vector<const Path*>{&on01}, one, no_cap, log, 0));
  net.end_batch();
  CHECK(net.flows_started() == 2);
  engine.run();
  CHECK(log.drained.empty());
  // Once the links are free again, a set is held.
  CHECK(net.start_held(std::vector<const Path*>{&on01}, one, no_cap, log, 0));
  engine.run();
  CHECK(log.drained.size() == 1);
}

TEST_CASE("a held set broken up within its own batch joins the batch as ordinary flows", "[network][flow]") {
  Pair pair;
  const FlowSet set = on_links_0_and_1(2e9, 1e9);
  const Path newcomer{{2, 0}, 0, {}};
  DrainLog log(pair.held_engine);
  TimePs held_newcomer = -1, plain_newcomer = -1;
  pair.held.begin_batch();
  REQUIRE(pair.held.start_held(set.pointers(), set.bytes, set.caps, log, 0));
  pair.held.start(newcomer, 1e9, [&] { held_newcomer = pair.held_engine.now(); });
  pair.held.end_batch();
  const auto plain = start_ordinary(pair.plain_engine, pair.plain, set, [&] {
    pair.plain.start(newcomer, 1e9, [&] { plain_newcomer = pair.plain_engine.now(); });
  });
  pair.held_engine.run();
  pair.plain_engine.run();

  CHECK(log.drained == *plain);
  CHECK(held_newcomer == plain_newcomer);
  CHECK(held_newcomer == 20 * kPsPerMs);  // half of link 0 for 1 GB, as the first flow gets
  check_same_links(pair.held, pair.plain);
  CHECK(pair.held_engine.events_processed() == pair.plain_engine.events_processed());
}
