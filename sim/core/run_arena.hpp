#pragma once
// A bump allocator over one anonymous block, for per-op state written once
// and kept for a run (timings, dependency counters): one mapping instead of
// a heap allocation per rank. Memory is returned only when the arena dies.
// Requests beyond the block (or every request, when the block is empty: a
// trace of no ops) go to the default resource, and the arena frees those it
// still holds when it dies, as it unmaps its block: its users never
// deallocate.
//
// The block is left in the kernel's default 4 KiB pages. It used to ask for
// 2 MiB pages (MADV_HUGEPAGE), to save page faults; on the project's 2-core
// machine the kernel zeroes a huge page at its first touch so slowly that
// touching 2 GiB took 7.4-8.0 s against 0.9 s in small pages; that zeroing
// was 9 % of the 16,384-GPU ECMP bench case's profile, and without it the
// case runs 3 % faster side by side, small pages' TLB misses taking back
// the rest (bench/large_runs.sh; docs/architecture.md, "Replaying 1024
// GPUs in seconds").
#include <cstddef>
#include <memory_resource>
#include <vector>

namespace simctl {

class RunArena final : public std::pmr::memory_resource {
 public:
  explicit RunArena(std::size_t capacity_bytes);
  ~RunArena() override;
  RunArena(const RunArena&) = delete;
  RunArena& operator=(const RunArena&) = delete;

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
