#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace simctl {

enum class CollectiveOp : std::uint8_t { all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all };

constexpr std::string_view to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "all_reduce";
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
    case CollectiveOp::broadcast: return "broadcast";
    case CollectiveOp::reduce: return "reduce";
    case CollectiveOp::all_to_all: return "all_to_all";
  }
  return "?";
}

constexpr std::optional<CollectiveOp> collective_op_from_string(std::string_view s) {
  for (auto op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
                  CollectiveOp::broadcast, CollectiveOp::reduce, CollectiveOp::all_to_all}) {
    if (to_string(op) == s) return op;
  }
  return std::nullopt;
}

// Whether the collective adds its inputs (nccl-tests prints "sum" for these).
constexpr bool reduces(CollectiveOp op) {
  return op == CollectiveOp::all_reduce || op == CollectiveOp::reduce_scatter || op == CollectiveOp::reduce;
}

// nccl-tests' bus-bandwidth factor: busbw = algbw * factor(n).
constexpr double bus_bandwidth_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::all_reduce: return 2.0 * (n - 1) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_to_all: return (n - 1) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce: return 1.0;
  }
  return 1.0;
}

}  // namespace simctl
