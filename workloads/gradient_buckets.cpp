#include "workloads/gradient_buckets.hpp"

namespace simctl {

std::vector<GradientBucket> assign_ddp_buckets(const std::vector<ParameterTensor>& tensors, int grad_bytes_per_element,
                                               Bytes first_bucket_bytes, Bytes bucket_bytes) {
  std::vector<GradientBucket> buckets;
  GradientBucket open;
  for (std::size_t i = tensors.size(); i-- > 0;) {
    open.tensors.push_back(i);
    open.bytes += tensors[i].elements * grad_bytes_per_element;
    const Bytes limit = buckets.empty() ? first_bucket_bytes : bucket_bytes;
    if (open.bytes >= limit) {
      buckets.push_back(std::move(open));
      open = GradientBucket{};
    }
  }
  if (!open.tensors.empty()) buckets.push_back(std::move(open));
  return buckets;
}

}  // namespace simctl
