#include "sim/core/engine.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "sim/core/clock_overflow.hpp"

using namespace simctl;

TEST_CASE("events run in time order", "[engine]") {
  Engine engine;
  std::vector<int> order;
  engine.schedule_at(30, [&] { order.push_back(3); });
  engine.schedule_at(10, [&] { order.push_back(1); });
  engine.schedule_at(20, [&] { order.push_back(2); });
  engine.run();
  CHECK(order == std::vector<int>{1, 2, 3});
  CHECK(engine.now() == 30);
  CHECK(engine.events_processed() == 3);
}

TEST_CASE("ties break by insertion order", "[engine]") {
  Engine engine;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) engine.schedule_at(5, [&order, i] { order.push_back(i); });
  engine.run();
  REQUIRE(order.size() == 100);
  for (int i = 0; i < 100; ++i) CHECK(order[i] == i);
}

TEST_CASE("events scheduled from an event see the current time", "[engine]") {
  Engine engine;
  TimePs seen = -1;
  engine.schedule_at(100, [&] { engine.schedule_after(50, [&] { seen = engine.now(); }); });
  engine.run();
  CHECK(seen == 150);
}

TEST_CASE("cancelled events do not run and cannot be cancelled twice", "[engine]") {
  Engine engine;
  int ran = 0;
  EventId a = engine.schedule_at(10, [&] { ran += 1; });
  engine.schedule_at(20, [&] { ran += 10; });
  CHECK(engine.pending() == 2);
  CHECK(engine.cancel(a));
  CHECK_FALSE(engine.cancel(a));
  CHECK(engine.pending() == 1);
  engine.run();
  CHECK(ran == 10);
  CHECK(engine.events_processed() == 1);
}

TEST_CASE("a stale id does not cancel the event that reused its slot", "[engine]") {
  Engine engine;
  int ran = 0;
  EventId first = engine.schedule_at(1, [&] { ran += 1; });
  engine.run();
  engine.schedule_at(2, [&] { ran += 10; });  // reuses the freed slot
  CHECK_FALSE(engine.cancel(first));
  engine.run();
  CHECK(ran == 11);
}

TEST_CASE("scheduling in the past is refused", "[engine]") {
  Engine engine;
  engine.schedule_at(10, [] {});
  engine.run();
  CHECK_THROWS_AS(engine.schedule_at(5, [] {}), std::logic_error);
}

TEST_CASE("run_until stops at the horizon", "[engine]") {
  Engine engine;
  int ran = 0;
  engine.schedule_at(10, [&] { ++ran; });
  engine.schedule_at(30, [&] { ++ran; });
  engine.run_until(20);
  CHECK(ran == 1);
  CHECK(engine.now() == 20);
  engine.run();
  CHECK(ran == 2);
}

TEST_CASE("two engines are independent values", "[engine]") {
  Engine a, b;
  int ran_a = 0, ran_b = 0;
  a.schedule_at(5, [&] { ++ran_a; });
  b.schedule_at(7, [&] { ++ran_b; });
  a.run();
  CHECK(ran_a == 1);
  CHECK(ran_b == 0);
  CHECK(b.pending() == 1);
}

TEST_CASE("a million events run in order with a self-rescheduling chain", "[engine][scale]") {
  Engine engine;
  constexpr int kEvents = 1'000'000;
  int count = 0;
  TimePs last = -1;
  bool monotonic = true;
  // Many outstanding events at once, with pseudo-random times.
  std::uint64_t state = 12345;
  for (int i = 0; i < kEvents; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    engine.schedule_at(static_cast<TimePs>(state >> 40), [&] {
      monotonic = monotonic && engine.now() >= last;
      last = engine.now();
      ++count;
    });
  }
  engine.run();
  CHECK(count == kEvents);
  CHECK(monotonic);
  CHECK(engine.events_processed() == static_cast<std::uint64_t>(kEvents));
}

// Time is int64 picoseconds. A duration past that range had converted to a
// negative time ("time is in the past"); it is now kTimeNever, which the
// engine refuses with ClockOverflow, and sums of times saturate.
TEST_CASE("durations past the clock's range are refused, never wrapped", "[engine][clock]") {
  CHECK(seconds_to_ps(1e300) == kTimeNever);
  CHECK(seconds_to_ps(std::nan("")) == kTimeNever);
  CHECK(seconds_to_ps(1.0) == kPsPerS);
  CHECK(later_by(kTimeNever - 10, 20) == kTimeNever);
  CHECK(later_by(5, 6) == 11);
  Engine engine;
  engine.schedule_at(kTimeNever - 100, [] {});
  engine.step();
  CHECK_THROWS_AS(engine.schedule_after(200, [] {}), ClockOverflow);
  CHECK_THROWS_AS(engine.schedule_at(kTimeNever, [] {}), ClockOverflow);
  CHECK_NOTHROW(engine.schedule_after(50, [] {}));
}
