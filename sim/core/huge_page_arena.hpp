#pragma once
// A bump allocator over one block the kernel may back with 2 MiB pages. A
// 1024-GPU replay keeps ~1 GB of per-op state that is written once; in 4 KiB
// pages that is ~250,000 page faults, which cost more than the replay's
// bookkeeping itself. Memory is returned only when the arena dies, so it
// suits state allocated once and kept for a run. Requests beyond the block
// go to the default resource.
#include <cstddef>
#include <memory_resource>

namespace simctl {

class HugePageArena final : public std::pmr::memory_resource {
 public:
  explicit HugePageArena(std::size_t capacity_bytes);
  ~HugePageArena() override;
  HugePageArena(const HugePageArena&) = delete;
  HugePageArena& operator=(const HugePageArena&) = delete;

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override;
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
  bool owns(const void* p) const;

  std::byte* base_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
};

}  // namespace simctl
