#pragma once
// Reusable slots for state that lives from one event to a later one (a
// collective in flight, a ring's edges). An event then carries a slot index
// instead of a heap-allocated closure, and a reused slot keeps its members'
// capacity, so a steady-state replay allocates nothing for them. Indices
// stay valid while the pool grows; references do not.
#include <cstdint>
#include <vector>

namespace simctl {

template <class T>
class SlotPool {
 public:
  // A free slot, holding whatever its last user left (callers reset it).
  std::uint32_t acquire() {
    if (free_.empty()) {
      slots_.emplace_back();
      return static_cast<std::uint32_t>(slots_.size() - 1);
    }
    const std::uint32_t slot = free_.back();
    free_.pop_back();
    return slot;
  }
  void release(std::uint32_t slot) { free_.push_back(slot); }
  void clear() {
    slots_.clear();
    free_.clear();
  }

  T& operator[](std::uint32_t slot) { return slots_[slot]; }
  const T& operator[](std::uint32_t slot) const { return slots_[slot]; }
  // Every slot ever handed out, free ones included.
  std::size_t size() const { return slots_.size(); }
  auto begin() { return slots_.begin(); }
  auto end() { return slots_.end(); }

 private:
  std::vector<T> slots_;
  std::vector<std::uint32_t> free_;
};

}  // namespace simctl
