// The progress line `simctl run` draws during a long replay on a terminal.
#include <catch2/catch.hpp>

#include "sim/cli/progress_bar.hpp"

using namespace simctl;

TEST_CASE("the replay progress line shows ops done, simulated time, event rate and time left", "[cli][progress]") {
  const ReplayProgress first{seconds_to_ps(0.5), 65536, 200, 1000};
  const ReplayProgress latest{seconds_to_ps(2.5), 1065536, 600, 1000};
  // 1 M events and 40 % of the ops in 2 s: 0.50 M/s, and the 40 % left in 2 s more.
  const std::string line = replay_progress_line(first, latest, 2.0);
  CHECK(line == "[######....] ops  60 %  simulated 2.500 s  1.1 M events, 0.50 M/s  ~2 s left");
  CHECK(line.size() < 80);  // wider than the terminal, \r could not redraw it
}

TEST_CASE("the progress line leaves out rates until the replay has advanced", "[cli][progress]") {
  const ReplayProgress only{seconds_to_ps(0.1), 65536, 10, 1000};
  CHECK(replay_progress_line(only, only, 0.0) == "[..........] ops   1 %  simulated 0.100 s  0.1 M events");
}

TEST_CASE("a sweep's progress line shows points done, points per second and time left", "[cli][progress]") {
  // 120 of 480 points in 40 s: 3 points/s, and 360 left take 120 s.
  const std::string line = points_progress_line(120, 480, 40.0);
  CHECK(line == "[##........] 120/480 points  25 %  3.0 points/s  ~120 s left");
  CHECK(line.size() < 80);
  CHECK(points_progress_line(0, 480, 0.0) == "[..........] 0/480 points   0 %");
}
