#pragma once
// A progress line on stderr for runs that last: silent for the first two
// seconds and whenever stderr is not a terminal, so tests, pipes and logs
// see nothing. Between stages it names the stage; during the replay it shows
// what the executor reports (Executor::on_progress).
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "sim/exec/executor.hpp"

namespace simctl {

class ProgressBar {
 public:
  ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar();

  // Whether it draws at all (stderr is a terminal): a replay need not
  // report progress to a bar that never shows.
  bool live() const { return worker_.joinable(); }
  void stage(const char* what);
  // For Executor::on_progress, during the stage that runs the replay;
  // called on the replaying thread.
  void replay(const ReplayProgress& progress);
  // For a sweep: `done` of `total` points finished; any thread may call it.
  void points(std::size_t done, std::size_t total);

 private:
  void loop();

  using Clock = std::chrono::steady_clock;
  struct Seen {
    ReplayProgress progress;
    Clock::time_point at;
  };
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  const char* what_ = "loading config";
  std::optional<Seen> replay_;  // the latest report of the stage's replay
  Seen first_;                  // its first report
  struct Points {
    std::size_t done = 0, total = 0;
    Clock::time_point started;
  };
  std::optional<Points> points_;  // a sweep's count, from its first report
  std::thread worker_;
};

// "[####......] ops  45 %  simulated 1.234 s  12.6 M events, 2.10 M/s  ~7 s
// left": the `latest` report of a replay, with rates over the wall-clock
// `seconds_between` it and the `first` report.
std::string replay_progress_line(const ReplayProgress& first, const ReplayProgress& latest, double seconds_between);

// "[####......] 120/480 points  25 %  3.2 points/s  ~112 s left": a sweep's
// progress `seconds` after its points started.
std::string points_progress_line(std::size_t done, std::size_t total, double seconds);

}  // namespace simctl
