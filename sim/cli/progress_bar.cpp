#include "sim/cli/progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace simctl {
namespace {

constexpr double kSilentSeconds = 2.0;
constexpr auto kRedraw = std::chrono::milliseconds(200);
constexpr int kBarWidth = 20;

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

std::string replay_progress_line(const ReplayProgress& p, double replay_s) {
  const double fraction = p.ops_total ? static_cast<double>(p.ops_done) / static_cast<double>(p.ops_total) : 0.0;
  const int filled = static_cast<int>(kBarWidth * fraction);
  char left[32] = "";
  // The ops still to finish take as long as those done did: rough, as an
  // ETA is, but it tracks the replay rather than a guess.
  if (fraction > 0.0 && replay_s > 0.0)
    std::snprintf(left, sizeof left, "  ~%.0f s left", replay_s * (1 - fraction) / fraction);
  const double events_m = static_cast<double>(p.events) / 1e6;
  char line[256];
  std::snprintf(line, sizeof line, "[%s%s] %3.0f %% of ops  simulated %.3f s  %.1f M events at %.2f M/s%s",
                std::string(filled, '#').c_str(), std::string(kBarWidth - filled, '.').c_str(), 100.0 * fraction,
                ps_to_seconds(p.simulated), events_m, replay_s > 0.0 ? events_m / replay_s : 0.0, left);
  return line;
}

ProgressBar::ProgressBar() {
  if (::isatty(STDERR_FILENO) == 1) worker_ = std::thread([this] { loop(); });
}

ProgressBar::~ProgressBar() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void ProgressBar::stage(const char* what) {
  const auto now = Clock::now();
  std::lock_guard lock(mutex_);
  what_ = what;
  stage_start_ = now;
  replay_.reset();
}

void ProgressBar::replay(const ReplayProgress& progress) {
  const auto now = Clock::now();
  std::lock_guard lock(mutex_);
  replay_ = progress;
  replay_seen_ = now;
}

void ProgressBar::loop() {
  const auto start = Clock::now();
  std::size_t drawn = 0;  // width of the last line, to blank it
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, kRedraw, [this] { return done_; })) {
    const double elapsed = seconds(Clock::now() - start);
    if (elapsed < kSilentSeconds) continue;
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "%6.1f s  ", elapsed);
    const std::string text =
        prefix + (replay_ ? replay_progress_line(*replay_, seconds(replay_seen_ - stage_start_)) : std::string(what_));
    std::fprintf(stderr, "\r%-*s", static_cast<int>(drawn), text.c_str());
    std::fflush(stderr);
    drawn = std::max(drawn, text.size());
  }
  if (drawn) std::fprintf(stderr, "\r%*s\r", static_cast<int>(drawn), "");
}

}  // namespace simctl
