#pragma once
// The spellings of the trace format's enumerations, shared by its writer and
// reader so that the two can never disagree.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "workloads/trace.hpp"

namespace simctl::trace_names {

template <typename E, std::size_t N>
using Table = std::array<std::pair<E, std::string_view>, N>;

inline constexpr Table<Stream, 8> kStreams{{{Stream::compute, "compute"},
                                            {Stream::communication, "communication"},
                                            {Stream::copy, "copy"},
                                            {Stream::loader, "loader"},
                                            {Stream::overlap, "overlap"},
                                            {Stream::prefetch, "prefetch"},
                                            {Stream::overlap_send, "overlap_send"},
                                            {Stream::data_parallel, "data_parallel"}}};

inline constexpr Table<OpPhase, 7> kPhases{{{OpPhase::forward, "forward"},
                                            {OpPhase::backward, "backward"},
                                            {OpPhase::optimizer, "optimizer"},
                                            {OpPhase::gradient_sync, "gradient_sync"},
                                            {OpPhase::data_loading, "data_loading"},
                                            {OpPhase::host_copy, "host_copy"},
                                            {OpPhase::other, "other"}}};

inline constexpr Table<CommDimension, 6> kDimensions{{{CommDimension::data, "data"},
                                                      {CommDimension::tensor, "tensor"},
                                                      {CommDimension::pipeline, "pipeline"},
                                                      {CommDimension::expert, "expert"},
                                                      {CommDimension::context, "context"},
                                                      {CommDimension::other, "other"}}};

// A copy's host buffer: is it pageable (staged by a CPU memcpy)?
inline constexpr Table<bool, 2> kHostMemory{{{false, "pinned"}, {true, "pageable"}}};

// An attention op's fused kernel, pass and mask (defaults: flash2, forward, none).
inline constexpr Table<FusedAttention, 3> kFusedAttention{
    {{FusedAttention::flash2, "flash2"}, {FusedAttention::flash3, "flash3"}, {FusedAttention::cudnn, "cudnn"}}};
inline constexpr Table<bool, 2> kAttentionPass{{{false, "forward"}, {true, "backward"}}};
inline constexpr Table<bool, 2> kAttentionMask{{{false, "none"}, {true, "causal"}}};

inline constexpr Table<CopyDirection, 3> kDirections{{{CopyDirection::host_to_device, "host_to_device"},
                                                      {CopyDirection::device_to_host, "device_to_host"},
                                                      {CopyDirection::storage_to_host, "storage_to_host"}}};

inline constexpr Table<ComputeKind, 8> kKernels{{{ComputeKind::gemm, "gemm"},
                                                 {ComputeKind::attention, "attention"},
                                                 {ComputeKind::elementwise, "elementwise"},
                                                 {ComputeKind::norm, "norm"},
                                                 {ComputeKind::softmax, "softmax"},
                                                 {ComputeKind::embedding, "embedding"},
                                                 {ComputeKind::optimizer, "optimizer"},
                                                 {ComputeKind::other, "other"}}};

inline constexpr Table<CollectiveOp, 6> kCollectives{{{CollectiveOp::all_reduce, "all_reduce"},
                                                      {CollectiveOp::all_gather, "all_gather"},
                                                      {CollectiveOp::reduce_scatter, "reduce_scatter"},
                                                      {CollectiveOp::broadcast, "broadcast"},
                                                      {CollectiveOp::reduce, "reduce"},
                                                      {CollectiveOp::all_to_all, "all_to_all"}}};

inline constexpr Table<DType, 6> kDTypes{{{DType::fp32, "fp32"},
                                          {DType::tf32, "tf32"},
                                          {DType::bf16, "bf16"},
                                          {DType::fp16, "fp16"},
                                          {DType::fp8, "fp8"},
                                          {DType::fp4, "fp4"}}};

template <typename E, std::size_t N>
std::string name_of(const Table<E, N>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return std::string(name);
  }
  return "?";
}

template <typename E, std::size_t N>
std::optional<E> value_of(const Table<E, N>& table, std::string_view name) {
  for (const auto& [v, n] : table) {
    if (n == name) return v;
  }
  return std::nullopt;
}

// "a, b or c", for messages that list the valid spellings.
template <typename E, std::size_t N>
std::string choices(const Table<E, N>& table) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? " or " : ", ";
    out += table[i].second;
  }
  return out;
}

}  // namespace simctl::trace_names
