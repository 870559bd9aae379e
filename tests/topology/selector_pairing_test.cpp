#include <catch2/catch.hpp>
#include <stdexcept>

#include "sim/topology/pairing.hpp"
#include "sim/topology/part_selector.hpp"

using namespace simctl;

TEST_CASE("part selectors read group, index, range, all and node prefix", "[topology]") {
  auto bare = parse_part_selector("nvswitch");
  CHECK(bare.group == "nvswitch");
  CHECK(bare.indices.all);
  CHECK_FALSE(bare.nodes);

  auto one = parse_part_selector("gpu[3]");
  CHECK_FALSE(one.indices.all);
  CHECK(one.indices.first == 3);
  CHECK(one.indices.last == 3);

  auto range = parse_part_selector("gpu[2..5]");
  CHECK(range.indices.first == 2);
  CHECK(range.indices.last == 5);

  auto nested = parse_part_selector("node[*].nic[1]");
  REQUIRE(nested.nodes);
  CHECK(nested.nodes->all);
  CHECK(nested.group == "nic");
  CHECK(nested.indices.first == 1);
}

TEST_CASE("malformed selectors explain the syntax", "[topology]") {
  for (const char* text : {"gpu[", "gpu[a]", "gpu[3..1]", "gpu[-1]", "gpu 3", "[3]", "node[0]gpu"}) {
    INFO(text);
    try {
      parse_part_selector(text);
      FAIL("accepted");
    } catch (const std::invalid_argument& e) {
      CHECK_THAT(e.what(), Catch::Contains("group[i..j]"));
    }
  }
}

TEST_CASE("selected indices stay inside the group", "[topology]") {
  CHECK(select_indices(IndexRange{}, 3) == std::vector<int>{0, 1, 2});
  CHECK(select_indices(IndexRange{false, 1, 2}, 3) == std::vector<int>{1, 2});
  CHECK_FALSE(select_indices(IndexRange{false, 2, 3}, 3));
}

TEST_CASE("pairings turn two part lists into cables", "[topology]") {
  using Pairs = std::vector<std::pair<EndpointId, EndpointId>>;
  const std::vector<EndpointId> gpus{0, 1, 2, 3};
  const std::vector<EndpointId> switches{10, 11};
  CHECK(pair_parts(gpus, {20}, Pairing::automatic) == Pairs{{0, 20}, {1, 20}, {2, 20}, {3, 20}});
  CHECK(pair_parts(gpus, {4, 5, 6, 7}, Pairing::automatic) == Pairs{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(pair_parts(gpus, switches, Pairing::automatic) == Pairs{{0, 10}, {1, 10}, {2, 11}, {3, 11}});
  CHECK(pair_parts(switches, gpus, Pairing::block) == Pairs{{10, 0}, {10, 1}, {11, 2}, {11, 3}});
  CHECK(pair_parts(gpus, switches, Pairing::round_robin) == Pairs{{0, 10}, {1, 11}, {2, 10}, {3, 11}});
  CHECK(pair_parts(switches, {30, 31}, Pairing::all_to_all) == Pairs{{10, 30}, {10, 31}, {11, 30}, {11, 31}});
}

TEST_CASE("pairings that do not fit say why", "[topology]") {
  CHECK_THROWS_WITH(pair_parts({0, 1, 2}, {5, 6}, Pairing::automatic), Catch::Contains("3 parts with 2"));
  CHECK_THROWS_WITH(pair_parts({0, 1, 2}, {5, 6}, Pairing::one_to_one), Catch::Contains("equally many"));
  CHECK_THROWS_WITH(pair_parts({}, {5}, Pairing::automatic), Catch::Contains("at least one part"));
}

// An xGMI full mesh (MI300X) had no pairing: all_to_all of a group with
// itself tried to cable each part to itself (issue #33).
TEST_CASE("mesh pairing cables every pair of one group once", "[topology][mesh]") {
  using Pairs = std::vector<std::pair<EndpointId, EndpointId>>;
  CHECK(pair_parts({0, 1, 2}, {0, 1, 2}, Pairing::mesh) == Pairs{{0, 1}, {0, 2}, {1, 2}});
  CHECK(pair_parts({0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}, Pairing::mesh).size() == 28);
  CHECK(pairing_from_string("mesh") == Pairing::mesh);
}

TEST_CASE("a mesh that is not full, or all_to_all within a group, says what to write", "[topology][mesh][bad-input]") {
  CHECK_THROWS_WITH(pair_parts({0, 1, 2, 3}, {2, 3, 4, 5}, Pairing::mesh),
                    Catch::Contains("both sides must name the same parts") && Catch::Contains("4 parts with 4"));
  CHECK_THROWS_WITH(pair_parts({0, 1}, {2, 3, 4}, Pairing::mesh), Catch::Contains("or use all_to_all"));
  CHECK_THROWS_WITH(pair_parts({0}, {0}, Pairing::mesh), Catch::Contains("at least two parts"));
  CHECK_THROWS_WITH(pair_parts({0, 1}, {1, 2}, Pairing::all_to_all),
                    Catch::Contains("cable a part to itself") && Catch::Contains("pairing: mesh"));
}
