// The replay's per-op state lives in one RunArena block; what does not fit
// spills to the heap and is still freed, so a run never leaks and never
// fails for want of a larger block.
#include "sim/core/run_arena.hpp"

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <vector>

using namespace simctl;

TEST_CASE("a run arena hands out aligned pieces of one block, back to back", "[core][arena]") {
  RunArena arena(1 << 20);
  auto* a = static_cast<std::byte*>(arena.allocate(100, 8));
  auto* b = static_cast<std::byte*>(arena.allocate(64, 64));
  auto* c = static_cast<std::byte*>(arena.allocate(16, 2));
  CHECK(reinterpret_cast<std::uintptr_t>(b) % 64 == 0);
  CHECK(b > a);
  CHECK(b - a < 100 + 64);  // only the alignment's padding between them
  CHECK(c == b + 64);
}

TEST_CASE("a run arena spills what its block cannot hold to the heap", "[core][arena]") {
  RunArena arena(4096);  // rounded up to one 2 MiB mapping
  auto* first = static_cast<std::byte*>(arena.allocate(8000, 8));
  constexpr std::size_t kBig = std::size_t{8} << 20;  // past the block
  auto* big = static_cast<std::byte*>(arena.allocate(kBig, 8));
  auto* next = static_cast<std::byte*>(arena.allocate(8, 8));
  const bool big_outside_block = big + kBig <= first || big >= first + (std::size_t{2} << 20);
  CHECK(big_outside_block);
  CHECK(next == first + 8000);   // the spill took nothing from the block
  big[kBig - 1] = std::byte{1};  // all of it is usable
  arena.deallocate(big, kBig, 8);
}

TEST_CASE("an empty run arena serves every request from the heap", "[core][arena]") {
  RunArena arena(0);
  std::pmr::vector<int> v(10, 3, &arena);
  v.resize(100000, 4);  // grows: the old spill is given back
  CHECK(v.front() == 3);
  CHECK(v.back() == 4);
}
