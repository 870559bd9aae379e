#include "sim/core/engine.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/core/clock_overflow.hpp"

namespace simctl {

namespace {
constexpr std::size_t kArity = 4;
}

std::uint32_t Engine::acquire_slot() {
  const std::uint32_t slot = slots_.acquire();
  if (slot > kSlotMask) throw std::length_error("Engine: more than 2^24 events pending at once");
  if (slot == heap_index_.size()) heap_index_.push_back(0);
  return slot;
}

void Engine::release_slot(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.action = nullptr;
  s.armed = false;
  ++s.generation;
  slots_.release(slot);
}

void Engine::place(std::size_t index, const Entry& entry) {
  heap_[index] = entry;
  heap_index_[entry.slot()] = static_cast<std::uint32_t>(index);
}

void Engine::sift_up(std::size_t index) {
  const Entry entry = heap_[index];
  while (index > 0) {
    const std::size_t parent = (index - 1) / kArity;
    if (!earlier(entry, heap_[parent])) break;
    place(index, heap_[parent]);
    index = parent;
  }
  place(index, entry);
}

void Engine::sift_down(std::size_t index) {
  const Entry entry = heap_[index];
  const std::size_t n = heap_.size();
  while (true) {
    const std::size_t first = kArity * index + 1;
    if (first >= n) break;
    std::size_t best = first;
    const std::size_t last = std::min(first + kArity, n);
    for (std::size_t c = first + 1; c < last; ++c) {
      if (earlier(heap_[c], heap_[best])) best = c;
    }
    if (!earlier(heap_[best], entry)) break;
    place(index, heap_[best]);
    index = best;
  }
  place(index, entry);
}

void Engine::remove_at(std::size_t index) {
  const Entry moved = heap_.back();
  heap_.pop_back();
  if (index == heap_.size()) return;
  heap_[index] = moved;
  if (index > 0 && earlier(moved, heap_[(index - 1) / kArity])) {
    sift_up(index);
  } else {
    sift_down(index);
  }
}

EventId Engine::schedule_after(TimePs delay, Action action) {
  if (delay >= kTimeNever - now_) throw ClockOverflow();
  return schedule_at(now_ + delay, std::move(action));
}

EventId Engine::schedule_at(TimePs at, Action action) {
  if (at < now_) throw std::logic_error("Engine::schedule_at: time is in the past");
  if (at >= kTimeNever) throw ClockOverflow();
  std::uint32_t slot = acquire_slot();
  Slot& s = slots_[slot];
  s.action = std::move(action);
  s.armed = true;
  if (next_sequence_ >> (64 - kSlotBits) != 0) throw std::length_error("Engine: more than 2^40 events scheduled");
  heap_.push_back(Entry{at, (next_sequence_++ << kSlotBits) | slot});
  sift_up(heap_.size() - 1);
  return EventId{slot, s.generation};
}

bool Engine::cancel(EventId id) {
  if (!id.valid() || id.slot >= slots_.size()) return false;
  Slot& s = slots_[id.slot];
  if (!s.armed || s.generation != id.generation) return false;
  remove_at(heap_index_[id.slot]);
  release_slot(id.slot);
  return true;
}

bool Engine::step() {
  if (heap_.empty()) return false;
  const Entry entry = heap_.front();
  remove_at(0);
  now_ = entry.time;
  Action action = std::move(slots_[entry.slot()].action);
  release_slot(entry.slot());
  ++processed_;
  action();
  return true;
}

void Engine::run() {
  while (step()) {
  }
}

void Engine::run_until(TimePs until) {
  while (!heap_.empty() && heap_.front().time <= until) step();
  if (until > now_) now_ = until;
}

}  // namespace simctl
