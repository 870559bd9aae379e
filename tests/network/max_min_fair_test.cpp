#include "models/network/max_min_fair.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>

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

TEST_CASE("a reused solver gives bit-identical rates to a fresh one", "[network][fairness]") {
  // Problems of different shapes, ties and a flow crossing one link twice, solved
  // in turn by one solver (its buffers and link stamps carried over).
  const std::vector<LinkId> a{0, 1}, b{1}, twice{2, 2}, c{2, 5}, d{5, 0};
  const std::vector<double> cap{10.0, 30.0, 30.0, 1.0, 1.0, 7.0};
  const std::vector<std::vector<const std::vector<LinkId>*>> problems{
      {&a, &b, &twice, &c, &d}, {&b}, {&twice, &c}, {&d, &a, &b, &d}, {&a, &b, &twice, &c, &d}};
  MaxMinFairSolver solver;
  for (const auto& flows : problems) {
    solver.clear();
    for (const auto* links : flows) solver.add_flow(*links);
    const std::vector<double> reused = solver.solve(cap);
    const std::vector<double> fresh = max_min_fair_rates(flows, cap);
    REQUIRE(reused.size() == flows.size());
    for (std::size_t f = 0; f < flows.size(); ++f) CHECK(reused[f] == fresh[f]);  // exact, not Approx
  }
}

TEST_CASE("a flow crossing a link twice uses its capacity twice", "[network][fairness]") {
  const std::vector<LinkId> twice{0, 0}, once{0};
  const auto r = max_min_fair_rates({&twice, &once}, {90.0});
  CHECK(r[0] == Approx(30.0));
  CHECK(r[1] == Approx(30.0));
}

TEST_CASE("a link id beyond the capacities is an error", "[network][fairness]") {
  const std::vector<LinkId> f{4};
  CHECK_THROWS_AS(max_min_fair_rates({&f}, {1.0, 1.0}), std::out_of_range);
}

TEST_CASE("a flow's own cap binds like a private link and leaves the rest to the others", "[network][fairness]") {
  const std::vector<LinkId> f{0};
  MaxMinFairSolver solver;
  solver.clear();
  solver.add_flow(f, 30.0);  // its sender pushes at most 30
  solver.add_flow(f);
  solver.add_flow(f, 80.0);  // a cap above its fair share does not bind
  const std::vector<double> rates = solver.solve({100.0});
  CHECK(rates[0] == Approx(30.0));
  CHECK(rates[1] == Approx(35.0));
  CHECK(rates[2] == Approx(35.0));
  // Alone, a capped flow runs at its cap, not at the link's rate.
  solver.clear();
  solver.add_flow(f, 30.0);
  CHECK(solver.solve({100.0})[0] == Approx(30.0));
}

TEST_CASE("a spread flow takes its share of each link and rises with the others", "[network][fairness]") {
  // Connection b puts half its rate on each of links 0 and 1 (two queue
  // pairs hashed apart); a crosses link 0 whole.
  const std::vector<LinkId> a{0}, b{0, 1};
  const std::vector<double> halves{0.5, 0.5};
  MaxMinFairSolver solver;
  solver.clear();
  solver.add_flow(a);
  solver.add_flow(b, halves);
  const std::vector<double> rates = solver.solve({90.0, 90.0});
  CHECK(rates[0] == Approx(60.0));  // both rise to r, and r + r/2 fills link 0
  CHECK(rates[1] == Approx(60.0));
  // Alone, it moves at twice one link's rate: each carries half.
  solver.clear();
  solver.add_flow(b, halves);
  CHECK(solver.solve({90.0, 90.0})[0] == Approx(180.0));
  // Shares of one are the plain problem, to the bit.
  const std::vector<LinkId> c{0, 1};
  const std::vector<double> ones{1.0, 1.0};
  solver.clear();
  solver.add_flow(a, std::vector<double>{1.0});
  solver.add_flow(c, ones);
  const std::vector<double> weighted = solver.solve({90.0, 40.0});
  const std::vector<double> plain = max_min_fair_rates({&a, &c}, {90.0, 40.0});
  CHECK(weighted == plain);
  CHECK(plain[0] == Approx(50.0));
}

TEST_CASE("a spread flow needs one share per link", "[network][fairness]") {
  const std::vector<LinkId> links{0, 1};
  const std::vector<double> one{0.5};
  MaxMinFairSolver solver;
  solver.clear();
  CHECK_THROWS_AS(solver.add_flow(links, one), std::invalid_argument);
}
