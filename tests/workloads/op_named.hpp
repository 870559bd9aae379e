#pragma once
// Finds a generated op by name, failing the test when the generator made none.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "workloads/transformer_ops.hpp"

namespace simctl::testing {

inline const ModelOp& op_named(const std::vector<ModelOp>& ops, const std::string& name) {
  for (const auto& op : ops) {
    if (op.name == name) return op;
  }
  FAIL("no op " << name);
  return ops.front();
}

}  // namespace simctl::testing
