#pragma once
// The discrete-event core: a clock and a queue of timed actions. It knows
// nothing about devices, links or workloads; models schedule closures on it.
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "sim/core/units.hpp"

namespace simctl {

// Names one scheduled event so that it can be cancelled. The generation
// guards against cancelling a later event that reused the same slot.
struct EventId {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

class Engine {
 public:
  using Action = std::function<void()>;

  TimePs now() const { return now_; }
  std::uint64_t events_processed() const { return processed_; }
  std::size_t pending() const { return live_; }

  // Schedules `action` at absolute time `at` (never earlier than now).
  // Events at the same time run in the order they were scheduled.
  EventId schedule_at(TimePs at, Action action);
  EventId schedule_after(TimePs delay, Action action) { return schedule_at(now_ + delay, std::move(action)); }

  // Returns false if the event already ran or was cancelled.
  bool cancel(EventId id);

  // Runs the next event; returns false when the queue is empty.
  bool step();
  void run();
  // Runs every event with time <= `until`, then sets the clock to `until`.
  void run_until(TimePs until);

 private:
  struct Entry {
    TimePs time;
    std::uint64_t sequence;
    std::uint32_t slot;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
    }
  };
  struct Slot {
    Action action;
    std::uint32_t generation = 0;
    bool armed = false;
  };

  std::uint32_t acquire_slot();
  void release_slot(std::uint32_t slot);
  bool pop_next(Entry& out);

  TimePs now_ = 0;
  std::uint64_t next_sequence_ = 0;
  std::uint64_t processed_ = 0;
  std::size_t live_ = 0;
  std::priority_queue<Entry, std::vector<Entry>, Later> queue_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
};

}  // namespace simctl
