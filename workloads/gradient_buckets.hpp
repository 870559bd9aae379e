#pragma once
// PyTorch DDP's gradient buckets. DDP walks the parameters in reverse
// registration order (roughly the order backward produces their gradients),
// appends each tensor to the open bucket and closes the bucket as soon as it
// holds at least the limit, so a bucket may overshoot by one tensor. The first
// bucket's limit is small (1 MiB) so that communication starts early; the
// rest use bucket_cap_mb. (torch/csrc/distributed/c10d/reducer.cpp,
// compute_bucket_assignment_by_size.)
#include <cstddef>
#include <vector>

#include "sim/core/units.hpp"
#include "workloads/parameter_layout.hpp"

namespace simctl {

struct GradientBucket {
  std::vector<std::size_t> tensors;  // indices into the parameter list, in bucket order
  Bytes bytes = 0;                   // gradient bytes all-reduced for this bucket
};

std::vector<GradientBucket> assign_ddp_buckets(const std::vector<ParameterTensor>& tensors, int grad_bytes_per_element,
                                               Bytes first_bucket_bytes, Bytes bucket_bytes);

}  // namespace simctl
