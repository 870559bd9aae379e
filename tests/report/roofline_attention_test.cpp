// One trace priced on many devices (`simctl roofline --device`): an attention
// kernel fitted only where it runs (cuDNN's, on Hopper and Blackwell) is
// priced as FlashAttention-2 on a device without its fit, and the device's
// roofline says so, instead of the command failing on the first such device.
#include <catch2/catch.hpp>

#include "models/devices/device_catalogue.hpp"
#include "sim/report/roofline.hpp"

using namespace simctl;

namespace roofline_attention_test {

std::vector<OpGroup> cudnn_attention_group() {
  ComputeWork attention;
  attention.kind = ComputeKind::attention;
  attention.dtype = DType::bf16;
  attention.flops = 4.0 * 2048 * 2048 * 128 * 16;
  attention.memory_bytes = 4.0 * 2048 * 128 * 16 * 2;
  attention.m = 2048;
  attention.n = 2048;
  attention.k = 128;
  attention.batch = 16;
  attention.attention_kernel = FusedAttention::cudnn;
  return {OpGroup{"attention", ComputeKind::attention, {attention}}};
}

}  // namespace roofline_attention_test

TEST_CASE("a device without the trace's attention kernel prices it as flash2 and says so", "[report][roofline]") {
  const DeviceCatalogue catalogue = DeviceCatalogue::load();
  const auto groups = roofline_attention_test::cudnn_attention_group();
  const DeviceRoofline h100 = price_roofline(catalogue.gpu("h100-sxm"), groups, DType::bf16);
  const DeviceRoofline a100 = price_roofline(catalogue.gpu("a100-sxm-80gb"), groups, DType::bf16);
  CHECK(h100.attention_priced_as_flash2.empty());
  REQUIRE(a100.attention_priced_as_flash2.size() == 1);
  CHECK(a100.attention_priced_as_flash2.front() == FusedAttention::cudnn);
  // What the A100 was charged is its FlashAttention-2 price of the same work.
  auto as_flash2 = groups;
  as_flash2.front().work.front().attention_kernel = FusedAttention::flash2;
  const DeviceRoofline a100_flash2 = price_roofline(catalogue.gpu("a100-sxm-80gb"), as_flash2, DType::bf16);
  CHECK(a100.groups.front().time_s == a100_flash2.groups.front().time_s);
  CHECK(a100_flash2.attention_priced_as_flash2.empty());
}
