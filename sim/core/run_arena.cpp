#include "sim/core/run_arena.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <iterator>

namespace simctl {

namespace run_arena_detail {
constexpr std::size_t kBlockAlignment = std::size_t{2} << 20;  // whole mappings, no partial tail page
}

RunArena::RunArena(std::size_t capacity_bytes) {
  if (capacity_bytes == 0) return;
  using run_arena_detail::kBlockAlignment;
  const std::size_t rounded = (capacity_bytes + kBlockAlignment - 1) / kBlockAlignment * kBlockAlignment;
  void* block = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED) return;  // every request falls through to the default resource
  base_ = static_cast<std::byte*>(block);
  capacity_ = rounded;
}

RunArena::~RunArena() {
  if (base_ != nullptr) munmap(base_, capacity_);
  for (const Spill& s : spilled_) std::pmr::new_delete_resource()->deallocate(s.p, s.bytes, s.alignment);
}

bool RunArena::owns(const void* p) const {
  const auto* b = static_cast<const std::byte*>(p);
  return base_ != nullptr && b >= base_ && b < base_ + capacity_;
}

void* RunArena::do_allocate(std::size_t bytes, std::size_t alignment) {
  const std::size_t start = (used_ + alignment - 1) / alignment * alignment;
  if (base_ == nullptr || start + bytes > capacity_) {
    void* p = std::pmr::new_delete_resource()->allocate(bytes, alignment);
    spilled_.push_back({p, bytes, alignment});
    return p;
  }
  used_ = start + bytes;
  return base_ + start;
}

void RunArena::do_deallocate(void* p, std::size_t bytes, std::size_t alignment) {
  if (owns(p)) return;
  // Spills are few (the block is sized for the run); the latest is the likeliest.
  for (auto it = spilled_.rbegin(); it != spilled_.rend(); ++it) {
    if (it->p != p) continue;
    spilled_.erase(std::next(it).base());
    break;
  }
  std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
}

}  // namespace simctl
