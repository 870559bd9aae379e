#pragma once
// A bump allocator over one block the kernel may back with 2 MiB pages. A
// 1024-GPU replay keeps ~1 GB of per-op state that is written once; in 4 KiB
// pages that is ~250,000 page faults, which cost more than the replay's
// bookkeeping itself. Memory is returned only when the arena dies, so it
// suits state allocated once and kept for a run. Requests beyond the block
// (or every request, when the block is empty: a trace of no ops) go to the
// default resource, and the arena frees those it still holds when it dies,
// as it unmaps its block: its users never deallocate.
#include <cstddef>
#include <memory_resource>
#include <vector>

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
  struct Spill {
    void* p;
    std::size_t bytes, alignment;
  };
  std::vector<Spill> spilled_;  // taken from the default resource, not yet given back
};

}  // namespace simctl
