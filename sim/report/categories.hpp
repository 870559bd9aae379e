#pragma once
// The step-time categories. At every instant a rank is in exactly one of
// them, so they partition the step: their times add up to the step time.
// Where several things run at once, the first in this list wins (compute
// hides communication, which hides copies, which hide waiting).
#include <array>
#include <cstdint>
#include <string_view>

#include "workloads/trace.hpp"

namespace simctl {

enum class Category : std::uint8_t {
  compute_bound,         // compute kernels the roofline's FLOP side limits
  compute_memory_bound,  // compute kernels the roofline's memory side limits
  compute_launch_bound,  // compute kernels whose launch overhead exceeds both roofline sides
  optimizer,             // the optimizer update (either bound)
  comm_data,             // exposed communication moving bytes, by parallel dimension
  comm_tensor,
  comm_pipeline,
  comm_expert,
  comm_context,
  comm_other,
  data_loading,     // storage -> host reads, input pipeline
  host_copy,        // host <-> device copies
  pipeline_bubble,  // waiting on a pipeline peer (fill, drain, stage imbalance)
  waiting,          // waiting on other ranks or dependencies, not pipeline
};

inline constexpr std::size_t kCategoryCount = 14;

inline constexpr std::array<Category, kCategoryCount> kAllCategories{Category::compute_bound,
                                                                     Category::compute_memory_bound,
                                                                     Category::compute_launch_bound,
                                                                     Category::optimizer,
                                                                     Category::comm_data,
                                                                     Category::comm_tensor,
                                                                     Category::comm_pipeline,
                                                                     Category::comm_expert,
                                                                     Category::comm_context,
                                                                     Category::comm_other,
                                                                     Category::data_loading,
                                                                     Category::host_copy,
                                                                     Category::pipeline_bubble,
                                                                     Category::waiting};

constexpr std::string_view to_string(Category c) {
  switch (c) {
    case Category::compute_bound: return "compute_bound";
    case Category::compute_memory_bound: return "compute_memory_bound";
    case Category::compute_launch_bound: return "compute_launch_bound";
    case Category::optimizer: return "optimizer";
    case Category::comm_data: return "comm_data";
    case Category::comm_tensor: return "comm_tensor";
    case Category::comm_pipeline: return "comm_pipeline";
    case Category::comm_expert: return "comm_expert";
    case Category::comm_context: return "comm_context";
    case Category::comm_other: return "comm_other";
    case Category::data_loading: return "data_loading";
    case Category::host_copy: return "host_copy";
    case Category::pipeline_bubble: return "pipeline_bubble";
    case Category::waiting: return "waiting";
  }
  return "?";
}

constexpr Category comm_category(CommDimension d) {
  switch (d) {
    case CommDimension::data: return Category::comm_data;
    case CommDimension::tensor: return Category::comm_tensor;
    case CommDimension::pipeline: return Category::comm_pipeline;
    case CommDimension::expert: return Category::comm_expert;
    case CommDimension::context: return Category::comm_context;
    case CommDimension::other: return Category::comm_other;
  }
  return Category::comm_other;
}

constexpr bool is_compute(Category c) { return c <= Category::optimizer; }
constexpr bool is_communication(Category c) { return c >= Category::comm_data && c <= Category::comm_other; }
constexpr bool is_copy(Category c) { return c == Category::data_loading || c == Category::host_copy; }

// "DP", "TP", "PP", "EP", "CP": how the report and messages name a dimension's groups.
constexpr std::string_view abbreviation(CommDimension d) {
  switch (d) {
    case CommDimension::data: return "DP";
    case CommDimension::tensor: return "TP";
    case CommDimension::pipeline: return "PP";
    case CommDimension::expert: return "EP";
    case CommDimension::context: return "CP";
    case CommDimension::other: return "other";
  }
  return "?";
}

inline constexpr std::array<CommDimension, 6> kAllDimensions{CommDimension::data,     CommDimension::tensor,
                                                             CommDimension::pipeline, CommDimension::expert,
                                                             CommDimension::context,  CommDimension::other};

}  // namespace simctl
