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

 private:
  void loop();

  using Clock = std::chrono::steady_clock;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  const char* what_ = "loading config";
  Clock::time_point stage_start_ = Clock::now();
  std::optional<ReplayProgress> replay_;  // the latest report of the stage's replay
  Clock::time_point replay_seen_;         // when replay_ came
  std::thread worker_;
};

// "[#########...........]  45 % of ops  simulated 1.234 s  12.6 M events at
// 2.10 M/s  ~7 s left" for a replay `replay_s` seconds (wall) in.
std::string replay_progress_line(const ReplayProgress& progress, double replay_s);

}  // namespace simctl
