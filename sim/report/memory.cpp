#include "sim/report/memory.hpp"

namespace simctl {

RankMemory rank_memory(std::vector<MemoryItem> items, double capacity_bytes) {
  RankMemory m;
  m.estimated = !items.empty();
  for (const MemoryItem& item : items) m.used_bytes += item.bytes;
  m.items = std::move(items);
  m.capacity_bytes = capacity_bytes;
  m.headroom_bytes = capacity_bytes - m.used_bytes;
  return m;
}

}  // namespace simctl
