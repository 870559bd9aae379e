#pragma once
// Helpers for the trace-file tests: temporary run configs, exact trace
// comparison and running the simctl CLI in-process.
#include <unistd.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/cli/command.hpp"
#include "workloads/trace.hpp"

namespace simctl::testing {

inline std::string source_path(const std::string& relative) { return std::string(SIMCTL_SOURCE_DIR) + "/" + relative; }

inline std::filesystem::path scratch_dir() {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_traces_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string write_scratch(const std::string& name, const std::string& text) {
  const auto file = scratch_dir() / name;
  std::ofstream(file) << text;
  return file.string();
}

// A run config in the scratch folder: a shipped system and a workload body.
inline std::string write_run_config(const std::string& name, const std::string& system, const std::string& workload) {
  return write_scratch(
      name, "name: " + name + "\nsystem: " + source_path("configs/systems/" + system) + "\nworkload:\n" + workload);
}

struct CliResult {
  int exit_code = 0;
  std::string out, err;
};

inline CliResult simctl_cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = run_main(args, out, err);
  return {code, out.str(), err.str()};
}

inline bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

inline bool same_work(const ComputeWork& a, const ComputeWork& b) {
  return a.kind == b.kind && a.dtype == b.dtype && same_bits(a.flops, b.flops) &&
         same_bits(a.memory_bytes, b.memory_bytes) && a.m == b.m && a.n == b.n && a.k == b.k && a.batch == b.batch;
}
inline bool same_work(const CollectiveCall& a, const CollectiveCall& b) {
  return a.op == b.op && a.group == b.group && same_bits(a.bytes, b.bytes) && a.dimension == b.dimension;
}
inline bool same_work(const CopyCall& a, const CopyCall& b) {
  return a.direction == b.direction && same_bits(a.bytes, b.bytes);
}
inline bool same_work(const PeerTransfer& a, const PeerTransfer& b) {
  return a.side == b.side && a.peer == b.peer && same_bits(a.bytes, b.bytes) && a.dimension == b.dimension;
}

inline bool same_work(const HostWork& a, const HostWork& b) {
  return same_bits(a.seconds, b.seconds) && same_bits(a.memory_bytes, b.memory_bytes);
}

inline bool same_op(const Op& a, const Op& b) {
  if (a.name != b.name || a.phase != b.phase || a.stream != b.stream || a.deps != b.deps) return false;
  if (a.host_issued != b.host_issued) return false;
  if (a.work.index() != b.work.index()) return false;
  return std::visit([&b](const auto& x) { return same_work(x, std::get<std::decay_t<decltype(x)>>(b.work)); }, a.work);
}

// Every op, group and number the same, doubles to the bit.
inline void require_same_trace(const Trace& a, const Trace& b) {
  REQUIRE(a.ranks.size() == b.ranks.size());
  CHECK(a.groups == b.groups);
  CHECK(a.gpu_of_rank == b.gpu_of_rank);
  CHECK(a.compute_dtype == b.compute_dtype);
  CHECK(a.host_issue_seconds_per_op == b.host_issue_seconds_per_op);
  CHECK(same_bits(a.totals.model_flops, b.totals.model_flops));
  CHECK(same_bits(a.totals.tokens, b.totals.tokens));
  CHECK(same_bits(a.totals.samples, b.totals.samples));
  CHECK(same_bits(a.totals.parameters, b.totals.parameters));
  for (std::size_t r = 0; r < a.ranks.size(); ++r) {
    const auto rank = static_cast<std::uint32_t>(r);
    const std::vector<Op> a_ops = resolved_ops(a, rank), b_ops = resolved_ops(b, rank);
    REQUIRE(a_ops.size() == b_ops.size());
    for (std::size_t i = 0; i < a_ops.size(); ++i) {
      INFO("rank " << r << " op " << i << " '" << a_ops[i].name << "'");
      REQUIRE(same_op(a_ops[i], b_ops[i]));
    }
  }
}

}  // namespace simctl::testing
