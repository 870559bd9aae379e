#include "sim/core/engine.hpp"

#include <stdexcept>

namespace simctl {

std::uint32_t Engine::acquire_slot() {
  if (!free_slots_.empty()) {
    std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  slots_.emplace_back();
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

void Engine::release_slot(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.action = nullptr;
  s.armed = false;
  ++s.generation;
  free_slots_.push_back(slot);
}

EventId Engine::schedule_at(TimePs at, Action action) {
  if (at < now_) throw std::logic_error("Engine::schedule_at: time is in the past");
  std::uint32_t slot = acquire_slot();
  Slot& s = slots_[slot];
  s.action = std::move(action);
  s.armed = true;
  queue_.push(Entry{at, next_sequence_++, slot});
  ++live_;
  return EventId{slot, s.generation};
}

bool Engine::cancel(EventId id) {
  if (!id.valid() || id.slot >= slots_.size()) return false;
  Slot& s = slots_[id.slot];
  if (!s.armed || s.generation != id.generation) return false;
  // The queue entry stays until popped; a disarmed slot is skipped then.
  s.armed = false;
  s.action = nullptr;
  --live_;
  return true;
}

bool Engine::pop_next(Entry& out) {
  while (!queue_.empty()) {
    out = queue_.top();
    queue_.pop();
    if (slots_[out.slot].armed) return true;
    release_slot(out.slot);
  }
  return false;
}

bool Engine::step() {
  Entry entry{};
  if (!pop_next(entry)) return false;
  now_ = entry.time;
  Action action = std::move(slots_[entry.slot].action);
  release_slot(entry.slot);
  --live_;
  ++processed_;
  action();
  return true;
}

void Engine::run() {
  while (step()) {
  }
}

void Engine::run_until(TimePs until) {
  while (!queue_.empty()) {
    const Entry& top = queue_.top();
    if (!slots_[top.slot].armed) {
      std::uint32_t slot = top.slot;
      queue_.pop();
      release_slot(slot);
      continue;
    }
    if (top.time > until) break;
    step();
  }
  if (until > now_) now_ = until;
}

}  // namespace simctl
