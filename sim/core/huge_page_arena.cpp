#include "sim/core/huge_page_arena.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <iterator>

namespace simctl {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}

HugePageArena::HugePageArena(std::size_t capacity_bytes) {
  if (capacity_bytes == 0) return;
  const std::size_t rounded = (capacity_bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* block = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED) return;  // every request falls through to the default resource
  // Advice only: where the kernel declines, the block works in small pages.
  madvise(block, rounded, MADV_HUGEPAGE);
  base_ = static_cast<std::byte*>(block);
  capacity_ = rounded;
}

HugePageArena::~HugePageArena() {
  if (base_ != nullptr) munmap(base_, capacity_);
  for (const Spill& s : spilled_) std::pmr::new_delete_resource()->deallocate(s.p, s.bytes, s.alignment);
}

bool HugePageArena::owns(const void* p) const {
  const auto* b = static_cast<const std::byte*>(p);
  return base_ != nullptr && b >= base_ && b < base_ + capacity_;
}

void* HugePageArena::do_allocate(std::size_t bytes, std::size_t alignment) {
  const std::size_t start = (used_ + alignment - 1) / alignment * alignment;
  if (base_ == nullptr || start + bytes > capacity_) {
    void* p = std::pmr::new_delete_resource()->allocate(bytes, alignment);
    spilled_.push_back({p, bytes, alignment});
    return p;
  }
  used_ = start + bytes;
  return base_ + start;
}

void HugePageArena::do_deallocate(void* p, std::size_t bytes, std::size_t alignment) {
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
