#include "models/network/flow_slot_map.hpp"

#include <utility>

namespace simctl {

// Fibonacci hashing spreads the consecutive ids the network hands out.
std::size_t FlowSlotMap::home_of(std::uint64_t id) const {
  return static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ull) >> shift_);
}

std::size_t FlowSlotMap::position_of(std::uint64_t id) const {
  const std::size_t mask = table_.size() - 1;
  std::size_t i = home_of(id);
  while (table_[i].slot != kNone && table_[i].id != id) i = (i + 1) & mask;
  return i;
}

void FlowSlotMap::grow() {
  std::vector<Entry> old = std::move(table_);
  const std::size_t size = old.empty() ? 64 : 2 * old.size();
  table_.assign(size, Entry{});
  shift_ = static_cast<unsigned>(64 - __builtin_ctzll(size));
  for (const Entry& e : old) {
    if (e.slot != kNone) table_[position_of(e.id)] = e;
  }
}

void FlowSlotMap::insert(std::uint64_t id, std::uint32_t slot) {
  if (2 * (size_ + 1) > table_.size()) grow();
  table_[position_of(id)] = Entry{id, slot};
  ++size_;
}

std::uint32_t FlowSlotMap::find(std::uint64_t id) const {
  if (table_.empty()) return kNone;
  return table_[position_of(id)].slot;
}

// Backward-shift deletion: later entries of the probe run move up into the
// hole, so no tombstones pile up over millions of insert/erase pairs.
void FlowSlotMap::erase(std::uint64_t id) {
  if (table_.empty()) return;
  const std::size_t mask = table_.size() - 1;
  std::size_t hole = position_of(id);
  if (table_[hole].slot == kNone) return;
  for (std::size_t j = (hole + 1) & mask; table_[j].slot != kNone; j = (j + 1) & mask) {
    // The entry at j may fill the hole only if its home is not in (hole, j].
    const std::size_t home = home_of(table_[j].id);
    if (((j - home) & mask) >= ((j - hole) & mask)) {
      table_[hole] = table_[j];
      hole = j;
    }
  }
  table_[hole] = Entry{};
  --size_;
}

}  // namespace simctl
