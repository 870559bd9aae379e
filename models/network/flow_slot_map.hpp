#pragma once
// FlowId -> slot index of the active flows. A flat open-addressing table: a
// run starts and drains millions of flows, and a node-based map would
// allocate and free once for each of them.
#include <cstdint>
#include <vector>

namespace simctl {

class FlowSlotMap {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // `id` must not be present yet.
  void insert(std::uint64_t id, std::uint32_t slot);
  // The slot of `id`, or kNone.
  std::uint32_t find(std::uint64_t id) const;
  // No-op when `id` is absent.
  void erase(std::uint64_t id);
  std::size_t size() const { return size_; }

 private:
  struct Entry {
    std::uint64_t id = 0;
    std::uint32_t slot = kNone;  // kNone: empty
  };

  std::size_t home_of(std::uint64_t id) const;
  std::size_t position_of(std::uint64_t id) const;  // the entry holding id, or an empty one
  void grow();

  std::vector<Entry> table_;  // power-of-two size, at most half full
  std::size_t size_ = 0;
  unsigned shift_ = 64;  // 64 - log2(table size), for Fibonacci hashing
};

}  // namespace simctl
