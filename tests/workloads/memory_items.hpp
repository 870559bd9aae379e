#pragma once
// The bytes of one named item (weights, activations...) of a memory row.
#include <catch2/catch.hpp>
#include <string>

#include "workloads/memory_estimate.hpp"

namespace simctl::testing {

inline double bytes_of(const StageMemory& row, const std::string& name) {
  for (const auto& i : row.items) {
    if (i.name == name) return i.bytes;
  }
  FAIL("no item " << name);
  return 0.0;
}

}  // namespace simctl::testing
