#include "models/network/max_min_fair.hpp"

#include <catch2/catch.hpp>

using namespace simctl;

TEST_CASE("one flow alone takes the whole bottleneck of its path", "[network][fairness]") {
  const std::vector<LinkId> a{0, 1};
  const auto rates = max_min_fair_rates({&a}, {100.0, 40.0});
  REQUIRE(rates.size() == 1);
  CHECK(rates[0] == Approx(40.0));
}

TEST_CASE("a flow bottlenecked elsewhere leaves the remainder to the others", "[network][fairness]") {
  // Link 0 (cap 100) is shared by f0 and f1; f1 also crosses link 1 (cap 30).
  // Max-min: f1 = 30 (its bottleneck), f0 = 100 - 30 = 70, f2 alone on link 2 = 50.
  const std::vector<LinkId> f0{0}, f1{0, 1}, f2{2};
  const auto rates = max_min_fair_rates({&f0, &f1, &f2}, {100.0, 30.0, 50.0});
  CHECK(rates[0] == Approx(70.0));
  CHECK(rates[1] == Approx(30.0));
  CHECK(rates[2] == Approx(50.0));
}

TEST_CASE("equal flows on one link split it evenly", "[network][fairness]") {
  const std::vector<LinkId> f{3};
  const auto rates = max_min_fair_rates({&f, &f, &f, &f}, {0, 0, 0, 80.0});
  for (double r : rates) CHECK(r == Approx(20.0));
}

TEST_CASE("no link is over-subscribed and every flow is bottlenecked somewhere", "[network][fairness]") {
  // A parking lot: f0 crosses links 0,1,2; f1 link 0; f2 link 1; f3 link 2.
  const std::vector<LinkId> f0{0, 1, 2}, f1{0}, f2{1}, f3{2};
  const std::vector<double> cap{10.0, 20.0, 30.0};
  const auto r = max_min_fair_rates({&f0, &f1, &f2, &f3}, cap);
  CHECK(r[0] == Approx(5.0));
  CHECK(r[1] == Approx(5.0));
  CHECK(r[2] == Approx(15.0));
  CHECK(r[3] == Approx(25.0));
  CHECK(r[0] + r[1] <= Approx(cap[0]));
  CHECK(r[0] + r[2] <= Approx(cap[1]));
  CHECK(r[0] + r[3] <= Approx(cap[2]));
}
