#pragma once
// Finds a generated op by name, failing the test when the generator made none.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "workloads/trace.hpp"
#include "workloads/transformer_ops.hpp"

namespace simctl::testing {

inline const ModelOp& op_named(const std::vector<ModelOp>& ops, const std::string& name) {
  for (const auto& op : ops) {
    if (op.name == name) return op;
  }
  FAIL("no op " << name);
  return ops.front();
}

// A rank's op in a built trace, by name; nullptr when it has none.
inline const Op* trace_op_named(const Trace& trace, std::uint32_t rank, const std::string& name) {
  for (const Op& op : trace.ops(rank)) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

// Its index in the rank's ops, failing the test when there is none.
inline std::size_t trace_op_index(const Trace& trace, std::uint32_t rank, const std::string& name) {
  const Op* op = trace_op_named(trace, rank, name);
  REQUIRE(op);
  return static_cast<std::size_t>(op - trace.ops(rank).data());
}

}  // namespace simctl::testing
