#pragma once
// A PyTorch profiler (Kineto) trace, one Chrome-trace JSON per rank, as a
// simctl trace: one step's GPU work with its measured times, its streams'
// order and what each op observably waited for, its NCCL kernels as
// collectives. docs/trace-format.md, "Importing a Kineto trace".
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "workloads/trace.hpp"

namespace simctl {

// A trace that cannot be imported: names the file and the event.
class KinetoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct KinetoFile {
  std::string label;  // the file's name, for errors
  nlohmann::json document;
};

struct KinetoImportOptions {
  std::optional<std::int64_t> step;    // ProfilerStep#K; default: the median step by duration
  std::optional<std::uint32_t> ranks;  // ranks to write; default: the files' world size
  std::string measured_on;             // the catalogue GPU the kernels ran on
  DType compute_dtype = DType::bf16;   // kernels whose name says no dtype
};

struct KinetoImport {
  Trace trace;
  std::string description;
  // Per file: the step taken and its profiled duration.
  struct Step {
    std::string file;
    std::int64_t number = 0;
    double profiled_seconds = 0.0;
    std::size_t gpu_ops = 0;
  };
  std::vector<Step> steps;
};

KinetoImport import_kineto(const std::vector<KinetoFile>& files, const KinetoImportOptions& options);

// The GPU a trace's deviceProperties names ("NVIDIA A100-PG509-200"), or "".
std::string kineto_device_name(const nlohmann::json& document);

}  // namespace simctl
