#include "workloads/input_pipeline.hpp"

#include <cmath>

#include "sim/config/config_schema.hpp"

namespace simctl {
namespace {

double batch_bytes(const InputPipeline& input, const MicroBatchLoad& batch) {
  return batch.samples * (input.bytes_per_sample > 0 ? input.bytes_per_sample : batch.model_bytes_per_sample);
}

// The workers' part of loading a batch: the storage read and the
// preprocessing, on `stream`, in that order (either may be absent).
std::vector<Op> worker_ops(const InputPipeline& input, const MicroBatchLoad& batch, const std::string& prefix,
                           Stream stream) {
  std::vector<Op> ops;
  if (input.from_storage) {
    ops.push_back(Op{prefix + "input.read",
                     OpPhase::data_loading,
                     stream,
                     {},
                     CopyCall{CopyDirection::storage_to_host, batch_bytes(input, batch)}});
  }
  if (input.preprocess_seconds_per_sample > 0) {
    // The workers split the batch's samples; the slowest one's share gates it.
    const double per_worker = std::ceil(batch.samples / static_cast<double>(input.workers));
    ops.push_back(Op{prefix + "input.preprocess",
                     OpPhase::data_loading,
                     stream,
                     {},
                     HostWork{per_worker * input.preprocess_seconds_per_sample, 0.0}});
  }
  return ops;
}

Op device_copy(const InputPipeline& input, const MicroBatchLoad& batch) {
  return Op{batch.prefix + "input_batch",
            OpPhase::data_loading,
            Stream::copy,
            {},
            CopyCall{CopyDirection::host_to_device, batch_bytes(input, batch), input.pageable}};
}

// Emits ops one after another; returns the last one's index, if any.
std::optional<OpIndex> emit_all(std::vector<Op> ops, const EmitOp& emit) {
  std::optional<OpIndex> last;
  for (Op& op : ops) last = emit(std::move(op), false);
  return last;
}

// A first step, and any loader without prefetch: read, preprocess and copy
// one after another on the copy stream; without prefetch the read waits for
// the compute before it.
void load_in_line(const InputPipeline& input, const MicroBatchLoad& batch, std::optional<OpIndex> last_compute,
                  const EmitOp& emit) {
  std::vector<Op> ops = worker_ops(input, batch, batch.prefix, Stream::copy);
  ops.push_back(device_copy(input, batch));
  if (!input.prefetch && last_compute) ops.front().deps.push_back(*last_compute);
  Op copy = std::move(ops.back());
  ops.pop_back();
  emit_all(std::move(ops), emit);
  emit(std::move(copy), true);
}

// The steady state: the workers prepare every batch but the step's first
// (ready since the previous step) and, after the last, the next step's
// first, on the loader stream; each copy waits for its batch and for the
// compute before it.
void load_steady(const InputPipeline& input, const MicroBatchLoad& batch, std::optional<OpIndex> last_compute,
                 const EmitOp& emit) {
  std::optional<OpIndex> prepared;
  if (!batch.first) prepared = emit_all(worker_ops(input, batch, batch.prefix, Stream::loader), emit);
  Op copy = device_copy(input, batch);
  if (prepared) copy.deps.push_back(*prepared);
  if (last_compute) copy.deps.push_back(*last_compute);
  emit(std::move(copy), true);
  if (batch.last) emit_all(worker_ops(input, batch, "next_step.", Stream::loader), emit);
}

}  // namespace

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
  if (auto start = node.optional_child("start")) input.cold_start = start->as_choice({"steady", "cold"}) == "cold";
  if (auto memory = node.optional_child("host_memory")) {
    input.pageable = memory->as_choice({"pinned", "pageable"}) == "pageable";
  }
  return input;
}

void load_micro_batch(const InputPipeline& input, const MicroBatchLoad& batch, std::optional<OpIndex> last_compute,
                      const EmitOp& emit) {
  if (input.prefetch && !input.cold_start) return load_steady(input, batch, last_compute, emit);
  load_in_line(input, batch, last_compute, emit);
}

void load_micro_batch(RankOps& ops, const InputPipeline& input, const MicroBatchLoad& batch) {
  load_micro_batch(input, batch, ops.last_compute(), [&ops](Op op, bool feeds_forward) {
    return ops.other(std::move(op), feeds_forward ? std::optional<int>(0) : std::nullopt);
  });
}

}  // namespace simctl
