#include "sim/cli/progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace simctl {
namespace {

constexpr double kSilentSeconds = 2.0;
constexpr auto kRedraw = std::chrono::milliseconds(200);
constexpr int kBarWidth = 10;  // the line stays within 80 columns, or \\r cannot redraw it

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

std::string replay_progress_line(const ReplayProgress& first, const ReplayProgress& latest, double seconds_between) {
  const auto fraction = [&](std::size_t ops) {
    return latest.ops_total ? static_cast<double>(ops) / static_cast<double>(latest.ops_total) : 0.0;
  };
  const double done = fraction(latest.ops_done), advanced = done - fraction(first.ops_done);
  const int filled = static_cast<int>(kBarWidth * done);
  char rate[64] = "";
  // Rates from the first report on, not from the stage's start: setting up
  // the ranks before the first event would make them look slow. The ops
  // left take as long as the last ones did: rough, as an ETA is.
  if (seconds_between > 0.0 && advanced > 0.0) {
    std::snprintf(rate, sizeof rate, ", %.2f M/s  ~%.0f s left",
                  static_cast<double>(latest.events - first.events) / 1e6 / seconds_between,
                  seconds_between * (1.0 - done) / advanced);
  }
  char line[160];
  std::snprintf(line, sizeof line, "[%s%s] ops %3.0f %%  simulated %.3f s  %.1f M events%s",
                std::string(filled, '#').c_str(), std::string(kBarWidth - filled, '.').c_str(), 100.0 * done,
                ps_to_seconds(latest.simulated), static_cast<double>(latest.events) / 1e6, rate);
  return line;
}

std::string points_progress_line(std::size_t done, std::size_t total, double seconds) {
  const double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
  const int filled = static_cast<int>(kBarWidth * fraction);
  char rate[64] = "";
  if (seconds > 0.0 && done > 0) {
    const double per_s = static_cast<double>(done) / seconds;
    std::snprintf(rate, sizeof rate, "  %.1f points/s  ~%.0f s left", per_s, static_cast<double>(total - done) / per_s);
  }
  char line[160];
  std::snprintf(line, sizeof line, "[%s%s] %zu/%zu points %3.0f %%%s", std::string(filled, '#').c_str(),
                std::string(kBarWidth - filled, '.').c_str(), done, total, 100.0 * fraction, rate);
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
  std::lock_guard lock(mutex_);
  what_ = what;
  replay_.reset();
}

void ProgressBar::replay(const ReplayProgress& progress) {
  const auto now = Clock::now();
  std::lock_guard lock(mutex_);
  if (!replay_) first_ = {progress, now};
  replay_ = {progress, now};
}

void ProgressBar::points(std::size_t done, std::size_t total) {
  const auto now = Clock::now();
  std::lock_guard lock(mutex_);
  if (!points_) points_ = Points{0, total, now};
  points_->done = std::max(points_->done, done);
  points_->total = total;
}

void ProgressBar::loop() {
  const auto start = Clock::now();
  std::size_t drawn = 0;  // width of the last line, to blank it
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, kRedraw, [this] { return done_; })) {
    const double elapsed = seconds(Clock::now() - start);
    if (elapsed < kSilentSeconds) continue;
    char stage[64];
    std::snprintf(stage, sizeof stage, "%6.1f s  %s", elapsed, what_);
    const std::string text =
        points_   ? points_progress_line(points_->done, points_->total, seconds(Clock::now() - points_->started))
        : replay_ ? replay_progress_line(first_.progress, replay_->progress, seconds(replay_->at - first_.at))
                  : stage;
    std::fprintf(stderr, "\r%-*s", static_cast<int>(drawn), text.c_str());
    std::fflush(stderr);
    drawn = std::max(drawn, text.size());
  }
  if (drawn) std::fprintf(stderr, "\r%*s\r", static_cast<int>(drawn), "");
}

}  // namespace simctl
