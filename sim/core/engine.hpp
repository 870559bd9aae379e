#pragma once
// The discrete-event core: a clock and a queue of timed actions. It knows
// nothing about devices, links or workloads; models schedule closures on it.
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/core/slot_pool.hpp"
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
  std::size_t pending() const { return heap_.size(); }

  // Schedules `action` at absolute time `at` (never earlier than now).
  // Events at the same time run in the order they were scheduled. A time
  // at or past kTimeNever throws ClockOverflow.
  EventId schedule_at(TimePs at, Action action);
  EventId schedule_after(TimePs delay, Action action);

  // Returns false if the event already ran or was cancelled.
  bool cancel(EventId id);

  // Runs the next event; returns false when the queue is empty.
  bool step();
  void run();
  // Runs every event with time <= `until`, then sets the clock to `until`.
  void run_until(TimePs until);

 private:
  // An indexed 4-ary min-heap on (time, sequence): a cancelled event leaves
  // the heap at once instead of lingering until its time, so a model that
  // reschedules often (the flow network, on every rate change) keeps the
  // heap as small as its live events.
  //
  // An entry is 16 bytes, so a node's four children share one cache line:
  // the scheduling sequence and the slot share a word (sequence in the high
  // 40 bits, so ordering by the word orders by sequence).
  static constexpr int kSlotBits = 24;
  static constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotBits) - 1;
  struct Entry {
    TimePs time;
    std::uint64_t sequence_and_slot;
    std::uint32_t slot() const { return static_cast<std::uint32_t>(sequence_and_slot & kSlotMask); }
  };
  struct Slot {
    Action action;
    std::uint32_t generation = 0;
    bool armed = false;
  };
  static bool earlier(const Entry& a, const Entry& b) {
    return a.time != b.time ? a.time < b.time : a.sequence_and_slot < b.sequence_and_slot;
  }

  std::uint32_t acquire_slot();
  void release_slot(std::uint32_t slot);
  void place(std::size_t index, const Entry& entry);
  void sift_up(std::size_t index);
  void sift_down(std::size_t index);
  void remove_at(std::size_t index);

  TimePs now_ = 0;
  std::uint64_t next_sequence_ = 0;
  std::uint64_t processed_ = 0;
  std::vector<Entry> heap_;
  SlotPool<Slot> slots_;
  std::vector<std::uint32_t> heap_index_;  // per slot: where its entry sits in heap_
};

}  // namespace simctl
