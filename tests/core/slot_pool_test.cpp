#include "sim/core/slot_pool.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace simctl;

TEST_CASE("a slot pool reuses released slots, and a reused slot keeps its capacity", "[core][pool]") {
  SlotPool<std::vector<int>> pool;
  const std::uint32_t a = pool.acquire();
  const std::uint32_t b = pool.acquire();
  CHECK(a != b);
  pool[a].assign(100, 7);
  pool[a].clear();
  pool.release(a);
  const std::uint32_t c = pool.acquire();
  CHECK(c == a);
  CHECK(pool[c].capacity() >= 100);
  // Growing the pool keeps every index meaning the same slot.
  pool[b].push_back(42);
  for (int i = 0; i < 1000; ++i) pool.acquire();
  CHECK(pool[b].size() == 1);
  CHECK(pool[b][0] == 42);
}
