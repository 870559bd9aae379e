#pragma once
// Which ops the detailed outputs (--trace, ops.csv) keep: some ranks
// (--trace-ranks 0-7,64) and a window of simulated time (--trace-window
// 1.2s..1.4s). A 16,384-GPU step has tens of millions of ops; one pipeline
// stage over one micro-batch is what a user opens in Perfetto.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.hpp"

namespace simctl {

// A list or window that does not parse, or names a rank the run lacks.
class SelectionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class OutputSelection {
 public:
  OutputSelection() = default;  // every rank, the whole step

  // "0-7,64,100-103" over ranks [0, rank_count): ranks in any order,
  // overlaps allowed. Throws SelectionError.
  void keep_ranks(std::string_view list, std::uint32_t rank_count);
  // "T0..T1" with units ("1.2s..1.4s", "0..250 ms" reads as 0 ms..250 ms):
  // an op is kept when it overlaps [T0, T1]. Throws SelectionError.
  void keep_window(std::string_view window);

  bool keeps_rank(std::uint32_t rank) const { return ranks_.empty() || (rank < ranks_.size() && ranks_[rank]); }
  bool keeps_op(TimePs start, TimePs end) const { return end >= from_ && start <= to_; }
  bool keeps_everything() const { return ranks_.empty() && from_ == 0 && to_ == kTimeNever; }
  std::vector<std::uint32_t> kept_ranks(std::uint32_t rank_count) const;

  // "ranks 0-7,64; 1200.000 ms..1400.000 ms", "" when everything is kept.
  std::string describe() const;
  TimePs from() const { return from_; }
  TimePs to() const { return to_; }

 private:
  std::vector<bool> ranks_;  // empty: every rank
  std::string rank_list_;
  TimePs from_ = 0, to_ = kTimeNever;
};

}  // namespace simctl
