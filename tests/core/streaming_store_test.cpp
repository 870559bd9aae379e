// Streamed stores must leave exactly the value a plain store would, every
// word of it, and nothing beside it: the replay writes its timings this way
// and the report reads them back.
#include "sim/core/streaming_store.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

using namespace simctl;

namespace streaming_store_detail {
struct ThreeWords {
  std::int64_t a;
  std::uint32_t b;
  std::uint32_t c;
  double d;
};
}  // namespace streaming_store_detail

TEST_CASE("a streamed store writes every word of the value and nothing beside it", "[core][streaming]") {
  using streaming_store_detail::ThreeWords;
  std::vector<ThreeWords> slots(3, ThreeWords{-1, 7, 7, -1.0});
  store_streaming(slots[1], ThreeWords{-123456789012345, 0xdeadbeefu, 42u, 2.5});
  fence_streaming_stores();
  CHECK(slots[1].a == -123456789012345);
  CHECK(slots[1].b == 0xdeadbeefu);
  CHECK(slots[1].c == 42u);
  CHECK(slots[1].d == 2.5);
  for (const std::size_t untouched : {std::size_t{0}, std::size_t{2}}) {
    CHECK(slots[untouched].a == -1);
    CHECK(slots[untouched].b == 7u);
    CHECK(slots[untouched].d == -1.0);
  }
}
