#pragma once
// Stores that bypass the cache, for large arrays written once while a
// replay runs and read only after it: the per-op timings of a 16,384-rank
// replay fill 1.3 GB, one rank's few lines at a time, 16,383 other ranks
// apart. An ordinary store first reads its line into the cache and evicts
// a line the replay will touch again; a streaming store does neither (some
// 7 % of that replay, bench/large_runs.sh). The writer calls
// fence_streaming_stores() before the arrays are read on another thread.
#include <cstddef>
#include <cstring>
#include <type_traits>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace simctl {

template <class T>
void store_streaming(T& destination, const T& value) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 8 == 0 && alignof(T) >= 8, "streamed in 8-byte words");
#if defined(__x86_64__)
  auto* words = reinterpret_cast<long long*>(&destination);
  for (std::size_t w = 0; w < sizeof(T) / 8; ++w) {
    long long word;
    std::memcpy(&word, reinterpret_cast<const char*>(&value) + 8 * w, 8);
    _mm_stream_si64(words + w, word);
  }
#else
  destination = value;
#endif
}

inline void fence_streaming_stores() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

}  // namespace simctl
