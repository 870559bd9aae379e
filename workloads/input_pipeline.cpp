#include "workloads/input_pipeline.hpp"

#include <cmath>

#include "sim/config/config_schema.hpp"

namespace simctl {

InputPipeline parse_input_pipeline(const ConfigNode& node) {
  expect_section(node, "workload.input");
  InputPipeline input;
  if (auto source = node.optional_child("source")) {
    input.from_storage = source->as_choice({"host_memory", "storage"}) == "storage";
  }
  if (auto bytes = node.optional_child("bytes_per_sample")) {
    input.bytes_per_sample = static_cast<double>(bytes->as_size());
    if (input.bytes_per_sample <= 0) bytes->fail("must be a positive size, e.g. 110 KiB");
  }
  input.preprocess_seconds_per_sample = ps_to_seconds(node.time_or("preprocess_per_sample", 0));
  input.workers = node.integer_or("workers", 1);
  if (input.workers < 1 || input.workers > 1024) node.child("workers").fail("must be an integer from 1 to 1024");
  input.prefetch = node.bool_or("prefetch", true);
  return input;
}

std::vector<Op> input_ops(const InputPipeline& input, double samples, double model_bytes_per_sample,
                          const std::string& prefix) {
  const double bytes = samples * (input.bytes_per_sample > 0 ? input.bytes_per_sample : model_bytes_per_sample);
  std::vector<Op> ops;
  if (input.from_storage) {
    ops.push_back(Op{prefix + "input.read",
                     OpPhase::data_loading,
                     Stream::copy,
                     {},
                     CopyCall{CopyDirection::storage_to_host, bytes}});
  }
  if (input.preprocess_seconds_per_sample > 0) {
    // The workers split the batch's samples; the slowest one's share gates it.
    const double per_worker = std::ceil(samples / static_cast<double>(input.workers));
    ops.push_back(Op{prefix + "input.preprocess",
                     OpPhase::data_loading,
                     Stream::copy,
                     {},
                     HostWork{per_worker * input.preprocess_seconds_per_sample}});
  }
  ops.push_back(Op{
      prefix + "input_batch", OpPhase::data_loading, Stream::copy, {}, CopyCall{CopyDirection::host_to_device, bytes}});
  return ops;
}

void load_micro_batch(RankOps& ops, const InputPipeline& input, double samples, double model_bytes_per_sample,
                      const std::string& prefix) {
  std::vector<Op> loading = input_ops(input, samples, model_bytes_per_sample, prefix);
  if (!input.prefetch) loading.front().deps = ops.deps_on_last_compute();
  for (std::size_t i = 0; i + 1 < loading.size(); ++i) ops.other(std::move(loading[i]), std::nullopt);
  ops.other(std::move(loading.back()), 0);
}

}  // namespace simctl
