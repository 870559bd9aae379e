#include "workloads/gradient_buckets.hpp"

#include <catch2/catch.hpp>

using namespace simctl;

namespace {
std::vector<ParameterTensor> tensors_of(const std::vector<std::int64_t>& sizes) {
  std::vector<ParameterTensor> out;
  for (auto s : sizes) out.push_back({"t", s});
  return out;
}
}  // namespace

TEST_CASE("buckets fill in reverse order and close once they reach the limit", "[workloads][ddp]") {
  // Byte sizes at 1 byte per element; first limit 10, then 20.
  const auto tensors = tensors_of({5, 30, 8, 8, 6, 3, 4});
  const auto buckets = assign_ddp_buckets(tensors, 1, 10, 20);
  REQUIRE(buckets.size() == 3);
  CHECK(buckets[0].tensors == std::vector<std::size_t>{6, 5, 4});  // 4+3+6 = 13 >= 10
  CHECK(buckets[0].bytes == 13);
  CHECK(buckets[1].tensors == std::vector<std::size_t>{3, 2, 1});  // 8+8+30 = 46 >= 20, overshoots
  CHECK(buckets[1].bytes == 46);
  CHECK(buckets[2].tensors == std::vector<std::size_t>{0});  // leftover
  CHECK(buckets[2].bytes == 5);
}

TEST_CASE("bucket bytes scale with the gradient element size", "[workloads][ddp]") {
  const auto tensors = tensors_of({100, 100});
  const auto buckets = assign_ddp_buckets(tensors, 4, 1 * kMiB, 25 * kMiB);
  REQUIRE(buckets.size() == 1);
  CHECK(buckets[0].bytes == 800);
}
