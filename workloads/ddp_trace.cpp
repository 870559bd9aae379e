#include "workloads/ddp_trace.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "workloads/cnn_ops.hpp"
#include "workloads/gradient_buckets.hpp"
#include "workloads/input_pipeline.hpp"
#include "workloads/lstm_ops.hpp"
#include "workloads/mlp_ops.hpp"
#include "workloads/model_flops.hpp"
#include "workloads/parameter_layout.hpp"
#include "workloads/stage_layout.hpp"
#include "workloads/transformer_ops.hpp"

namespace simctl {
namespace {

constexpr std::uint32_t kAllRanksGroup = 0;
constexpr double kMlpInputBytesPerFeature = 4.0;  // fp32 features from the data loader
// Images are copied as uint8 pixels and normalised on the GPU, as NVIDIA's
// ResNet-50 recipe (DALI or its fast collate) does.
constexpr double kCnnInputBytesPerPixel = 1.0;

// One micro-batch's passes and the parameter list gradients complete.
struct ModelPasses {
  std::vector<ModelOp> forward, backward;
  std::vector<ParameterTensor> tensors;
};

ModelPasses model_passes(const WorkloadSpec& spec) {
  if (spec.cnn) {
    const CnnPass pass{*spec.cnn, spec.micro_batch, spec.precision, spec.ddp.grad_dtype, spec.kernel_time_factor};
    return {cnn_forward_ops(pass), cnn_backward_ops(pass), cnn_parameter_tensors(*spec.cnn)};
  }
  if (spec.lstm) {
    const LstmPass pass{*spec.lstm, spec.micro_batch, spec.precision, spec.ddp.grad_dtype, spec.kernel_time_factor};
    return {lstm_forward_ops(pass), lstm_backward_ops(pass), lstm_parameter_tensors(*spec.lstm)};
  }
  if (spec.mlp) {
    const MlpPass pass{*spec.mlp, spec.micro_batch, spec.precision, spec.ddp.grad_dtype, spec.kernel_time_factor};
    return {mlp_forward_ops(pass), mlp_backward_ops(pass), mlp_parameter_tensors(*spec.mlp)};
  }
  const PassShape shape = plan_shape(spec);
  return {forward_ops(shape), backward_ops(shape), parameter_tensors(spec.model)};
}

// For each bucket, the position in `backward` of the op that completes its
// last gradient.
std::vector<std::size_t> bucket_ready_positions(const std::vector<GradientBucket>& buckets,
                                                const std::vector<ModelOp>& backward, std::size_t tensor_count) {
  constexpr std::size_t kNever = static_cast<std::size_t>(-1);
  std::vector<std::size_t> producer(tensor_count, kNever);
  for (std::size_t pos = 0; pos < backward.size(); ++pos) {
    for (std::size_t t : backward[pos].grads_ready) producer[t] = pos;
  }
  std::vector<std::size_t> ready;
  for (const auto& bucket : buckets) {
    std::size_t latest = 0;
    for (std::size_t t : bucket.tensors) {
      if (producer[t] == kNever) throw std::logic_error("no backward op produces a parameter gradient");
      latest = std::max(latest, producer[t]);
    }
    ready.push_back(latest);
  }
  return ready;
}

// Appends ops to one rank's list, chaining compute ops (one stream, one data
// flow) and remembering what the optimizer must wait for.
class RankOpsBuilder {
 public:
  OpIndex add(Op op) {
    ops_.push_back(std::move(op));
    return static_cast<OpIndex>(ops_.size() - 1);
  }

  OpIndex add_compute(std::string name, OpPhase phase, const ComputeWork& work, std::vector<OpIndex> deps = {}) {
    if (last_compute_) deps.push_back(*last_compute_);
    last_compute_ = add(Op{std::move(name), phase, Stream::compute, std::move(deps), work});
    return *last_compute_;
  }

  OpIndex add_all_reduce(std::size_t bucket, Bytes bytes, OpIndex after) {
    CollectiveCall call{CollectiveOp::all_reduce, kAllRanksGroup, static_cast<double>(bytes)};
    OpIndex i = add(
        Op{"allreduce.bucket" + std::to_string(bucket), OpPhase::gradient_sync, Stream::communication, {after}, call});
    all_reduces_.push_back(i);
    return i;
  }

  std::optional<OpIndex> last_compute() const { return last_compute_; }
  const std::vector<OpIndex>& all_reduces() const { return all_reduces_; }
  std::vector<Op> take() { return std::move(ops_); }

 private:
  std::vector<Op> ops_;
  std::optional<OpIndex> last_compute_;
  std::vector<OpIndex> all_reduces_;
};

std::string micro_prefix(const WorkloadSpec& spec, std::int64_t micro) {
  return spec.grad_accum > 1 ? "mb" + std::to_string(micro) + "." : "";
}

// Loads the micro-batch (input_pipeline.hpp), then runs the forward pass
// once its copy to the GPU is done.
void add_forward(RankOpsBuilder& b, const WorkloadSpec& spec, std::int64_t micro, const std::vector<ModelOp>& fwd) {
  const std::string prefix = micro_prefix(spec, micro);
  const MicroBatchLoad batch{static_cast<double>(spec.micro_batch), model_input_bytes_per_sample(spec), prefix,
                             micro == 0, micro + 1 == spec.grad_accum};
  std::vector<OpIndex> first_deps;
  load_micro_batch(spec.input, batch, b.last_compute(), [&](Op op, bool feeds_forward) {
    const OpIndex i = b.add(std::move(op));
    if (feeds_forward) first_deps.push_back(i);
    return i;
  });
  for (const auto& op : fwd) {
    b.add_compute(prefix + op.name, op.phase, op.work, std::move(first_deps));
    first_deps.clear();
  }
}

struct BucketPlan {
  std::vector<GradientBucket> buckets;
  std::vector<std::size_t> ready_at;  // backward position completing each bucket
};

// Backward of the step's last micro-batch, with bucket all-reduces placed
// right after the op completing each bucket (or all at the end).
void add_synced_backward(RankOpsBuilder& b, const WorkloadSpec& spec, const std::vector<ModelOp>& bwd,
                         const BucketPlan& plan) {
  const std::string prefix = micro_prefix(spec, spec.grad_accum - 1);
  std::vector<OpIndex> emitted;
  std::size_t next = 0;
  for (std::size_t pos = 0; pos < bwd.size(); ++pos) {
    emitted.push_back(b.add_compute(prefix + bwd[pos].name, bwd[pos].phase, bwd[pos].work));
    // Buckets launch in index order, as DDP's reducer does.
    while (spec.ddp.overlap && next < plan.buckets.size() && plan.ready_at[next] <= pos) {
      b.add_all_reduce(next, plan.buckets[next].bytes, emitted[plan.ready_at[next]]);
      ++next;
    }
  }
  for (; next < plan.buckets.size(); ++next) b.add_all_reduce(next, plan.buckets[next].bytes, emitted.back());
}

void add_unsynced_backward(RankOpsBuilder& b, const WorkloadSpec& spec, std::int64_t micro,
                           const std::vector<ModelOp>& bwd) {
  const std::string prefix = micro_prefix(spec, micro);
  for (const auto& op : bwd) b.add_compute(prefix + op.name, op.phase, op.work);
}

std::vector<Op> rank_ops(const WorkloadSpec& spec) {
  const ModelPasses passes = model_passes(spec);
  const auto& fwd = passes.forward;
  const auto& bwd = passes.backward;
  const auto& tensors = passes.tensors;
  BucketPlan plan;
  plan.buckets = assign_ddp_buckets(tensors, bytes_per_element(spec.ddp.grad_dtype), spec.ddp.first_bucket_size_bytes,
                                    spec.ddp.bucket_size_bytes);
  plan.ready_at = bucket_ready_positions(plan.buckets, bwd, tensors.size());

  RankOpsBuilder b;
  for (std::int64_t micro = 0; micro < spec.grad_accum; ++micro) {
    add_forward(b, spec, micro, fwd);
    if (micro + 1 < spec.grad_accum) {
      add_unsynced_backward(b, spec, micro, bwd);
    } else {
      add_synced_backward(b, spec, bwd, plan);
    }
  }
  b.add_compute("optimizer.adam", OpPhase::optimizer, adam_step_work(spec), b.all_reduces());
  return b.take();
}

StepTotals step_totals(const WorkloadSpec& spec) {
  const double sequences = static_cast<double>(spec.global_batch);
  StepTotals t;
  // An MLP sample or a CNN image has no tokens: its throughput is samples/s alone.
  if (spec.cnn) {
    t.model_flops = cnn_training_flops(*spec.cnn, sequences);
  } else if (spec.lstm) {
    t.model_flops = lstm_training_flops(*spec.lstm, sequences);
  } else {
    t.model_flops = spec.mlp ? mlp_training_flops(*spec.mlp, sequences) : training_model_flops(spec.model, sequences);
  }
  t.tokens = spec.mlp || spec.cnn ? 0.0 : sequences * static_cast<double>(spec.model.seq_len);
  t.samples = sequences;
  t.parameters = static_cast<double>(parameter_count(spec));
  return t;
}

void check_fits(const WorkloadSpec& spec, int num_gpus) {
  if (spec.strategy != Strategy::ddp) throw std::invalid_argument("build_ddp_trace needs strategy ddp");
  if (spec.parallel.tensor != 1 || spec.parallel.pipeline != 1) {
    throw std::invalid_argument("build_ddp_trace runs pure data parallelism; use build_parallel_trace");
  }
  if (num_gpus != spec.parallel.data) {
    throw std::invalid_argument("the workload asks for parallel.data = " + std::to_string(spec.parallel.data) +
                                " but the system has " + std::to_string(num_gpus) +
                                " GPUs; DDP uses one GPU per data-parallel rank");
  }
}

}  // namespace

double model_input_bytes_per_sample(const WorkloadSpec& spec) {
  if (spec.cnn) return kCnnInputBytesPerPixel * static_cast<double>(spec.cnn->input.elements());
  if (spec.mlp) return kMlpInputBytesPerFeature * static_cast<double>(spec.mlp->widths.front());
  return kInputBytesPerToken * static_cast<double>(spec.model.seq_len);
}

double adam_bytes_per_parameter(const WorkloadSpec& spec) {
  const double grad_bytes = bytes_per_element(spec.ddp.grad_dtype);
  double bytes = spec.optimizer_fused ? kFusedAdamStateBytes + grad_bytes : kUnfusedAdamStateBytes + 2.0 * grad_bytes;
  if (!stored_as_fp32(spec.precision)) bytes += bytes_per_element(spec.precision);
  return bytes;
}

ComputeWork adam_step_work(const WorkloadSpec& spec) {
  const double params = static_cast<double>(parameter_count(spec));
  const double bytes_per_param = adam_bytes_per_parameter(spec);
  ComputeWork w;
  w.kind = ComputeKind::optimizer;
  w.dtype = DType::fp32;
  w.flops = kAdamFlopsPerParameter * params;
  w.memory_bytes = bytes_per_param * params;
  return with_time_factor(w, spec.kernel_time_factor);
}

Trace build_ddp_trace(const WorkloadSpec& spec, int num_gpus) {
  check_fits(spec, num_gpus);
  Trace trace;
  trace.programs.push_back(rank_ops(spec));  // every rank runs the same ops on group 0
  trace.ranks.assign(static_cast<std::size_t>(num_gpus), RankTrace{});
  std::vector<std::uint32_t> everyone;
  for (int r = 0; r < num_gpus; ++r) everyone.push_back(static_cast<std::uint32_t>(r));
  trace.groups.push_back(std::move(everyone));
  trace.totals = step_totals(spec);
  trace.compute_dtype = spec.precision;
  return trace;
}

}  // namespace simctl
