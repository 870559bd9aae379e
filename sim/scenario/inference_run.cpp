#include "sim/scenario/inference_run.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

#include "models/devices/compute_model.hpp"
#include "sim/exec/executor.hpp"
#include "workloads/inference_trace.hpp"
#include "workloads/rank_grid.hpp"

namespace simctl {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// The compute-bound search looks at batches 1 … this (past what an 80 GB
// GPU holds for the shipped models at their contexts).
constexpr std::int64_t kBatchSearchLimit = 4'096;
constexpr std::int64_t kMaxFittingBatch = 65'536;  // the largest `batch` a config may give
// Request-stream prefills are priced at the admitted prompts' mean length,
// rounded up to this many tokens so that alike iterations share a replay.
constexpr std::int64_t kPrefillTokenBucket = 16;

const GpuSpec& rank0_gpu(const Scenario& s) {
  return s.catalogue.gpu(s.system.part(s.system.gpus()[s.trace.gpu_index(0)]).model);
}

std::string describe(const InferenceStep& step) {
  if (step.phase == InferencePhase::prefill)
    return "prefill " + std::to_string(step.batch) + " x " + std::to_string(step.tokens) + " tokens";
  return "decode " + std::to_string(step.batch) + " sequences, " + std::to_string(step.tokens) + " cached tokens";
}

// Replays serving steps on the scenario's system, remembering step times.
class StepPricer {
 public:
  explicit StepPricer(const Scenario& s) : s_(s) {}

  ServingStep replay_with_breakdown(const InferenceStep& step) const {
    const Trace trace = trace_for(step);
    Executor executor(s_.system, s_.catalogue, trace, s_.tuning, s_.collectives);
    executor.set_fold_tolerance(s_.fold_tolerance);
    const ExecutionResult result = executor.run();
    const StepReport report = build_step_report(trace, result, s_.system, s_.catalogue, s_.labels);
    const TimeBreakdown& b = report.mean;
    ServingStep out;
    out.what = describe(step);
    out.time_s = ps_to_seconds(result.step_time);
    out.compute_bound_s = ps_to_seconds(b[Category::compute_bound]);
    out.memory_bound_s = ps_to_seconds(b[Category::compute_memory_bound]);
    out.launch_bound_s = ps_to_seconds(b[Category::compute_launch_bound]);
    out.tensor_comm_s = ps_to_seconds(b[Category::comm_tensor]);
    out.pipeline_s = ps_to_seconds(b[Category::comm_pipeline] + b.idle());
    return out;
  }

  double seconds(const InferenceStep& step) {
    const auto key = std::make_tuple(step.phase, step.batch, step.tokens);
    if (auto found = memo_.find(key); found != memo_.end()) return found->second;
    const Trace trace = trace_for(step);
    Executor executor(s_.system, s_.catalogue, trace, s_.tuning, s_.collectives);
    executor.set_fold_tolerance(s_.fold_tolerance);
    const double t = ps_to_seconds(executor.run().step_time);
    memo_.emplace(key, t);
    return t;
  }

 private:
  Trace trace_for(const InferenceStep& step) const {
    Trace trace = build_inference_trace(s_.workload, step);
    trace.gpu_of_rank = s_.trace.gpu_of_rank;
    return trace;
  }
  const Scenario& s_;
  std::map<std::tuple<InferencePhase, std::int64_t, std::int64_t>, double> memo_;
};

struct RooflineSums {
  double compute_s = 0.0;
  double memory_s = 0.0;
};

void add_ops(const GpuSpec& gpu, const std::vector<ModelOp>& ops, bool gemms_only, double times, RooflineSums& sums) {
  for (const ModelOp& op : ops) {
    if (op.comm || (gemms_only && op.work.kind != ComputeKind::gemm)) continue;
    const ComputeEstimate e = estimate_compute(gpu, op.work);
    sums.compute_s += times * e.compute_time_s;
    sums.memory_s += times * e.memory_time_s;
  }
}

// FLOP time and byte time of one TP rank's decode step over the whole
// model (every layer alike, plus the head), each op priced by the compute
// model. Pipeline stages split the layers and so scale both sides alike.
RooflineSums decode_roofline(const WorkloadSpec& spec, const GpuSpec& gpu, std::int64_t batch, std::int64_t cached,
                             bool gemms_only) {
  InferencePass layer = inference_pass(spec, InferenceStep{InferencePhase::decode, batch, cached}, 0);
  layer.first_layer = 0;
  layer.end_layer = 1;
  layer.embedding = false;
  layer.head = false;
  InferencePass head = layer;
  head.end_layer = 0;
  head.head = true;
  RooflineSums sums;
  add_ops(gpu, inference_ops(layer), gemms_only, static_cast<double>(spec.model.layers), sums);
  add_ops(gpu, inference_ops(head), gemms_only, 1.0, sums);
  return sums;
}

// The batch from which on the decode step (or its GEMMs) spends at least as
// long on FLOPs as on bytes, up to the search limit: one past the largest
// batch that does not. Not the first batch that does: a GEMM's time steps up
// where its rows spill into another tile (65 rows cost about what 128 do),
// so just past a tile boundary a batch can look compute-bound and the next
// ones not.
std::optional<std::int64_t> compute_bound_batch(const WorkloadSpec& spec, const GpuSpec& gpu, std::int64_t cached,
                                                bool gemms_only) {
  for (std::int64_t b = kBatchSearchLimit; b >= 1; --b) {
    const RooflineSums sums = decode_roofline(spec, gpu, b, cached, gemms_only);
    if (sums.compute_s < sums.memory_s) {
      if (b == kBatchSearchLimit) return std::nullopt;
      return b + 1;
    }
  }
  return 1;
}

double most_stage_bytes(const WorkloadSpec& spec) {
  double most = 0.0;
  for (const StageMemory& row : estimate_memory(spec)) most = std::max(most, row.total_bytes());
  return most;
}

// The largest batch whose memory estimate fits the GPU (0: not even one).
std::int64_t largest_fitting_batch(WorkloadSpec spec, double capacity_bytes) {
  std::int64_t lo = 0, hi = kMaxFittingBatch;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi + 1) / 2;
    spec.inference->batch = mid;
    if (most_stage_bytes(spec) <= capacity_bytes) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

double item_bytes(const StageMemory& row, const std::string& name) {
  for (const auto& i : row.items)
    if (i.name == name) return i.bytes;
  return 0.0;
}

// ---- the request stream ----

// splitmix64: the stream's draws, the same on every platform for a seed.
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  std::int64_t between(const TokenRange& r) {
    return r.min + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(r.max - r.min + 1));
  }

 private:
  std::uint64_t state_;
};

struct Request {
  double arrival_s = 0.0;
  std::int64_t prompt = 0, output = 0;
  std::int64_t generated = 0;
  double first_token_s = 0.0, done_s = 0.0;
};

std::vector<Request> draw_requests(const RequestStream& stream) {
  Draws draws(stream.seed);
  std::vector<Request> out;
  double t = 0.0;
  for (std::int64_t i = 0; i < stream.count; ++i) {
    t += -std::log1p(-draws.unit()) / stream.rate_per_s;
    Request r;
    r.arrival_s = t;
    r.prompt = draws.between(stream.prompt_tokens);
    r.output = draws.between(stream.output_tokens);
    out.push_back(r);
  }
  return out;
}

// Decode-step time at batch b as a straight line in the mean cached length
// through two replays (the step's only length-dependent work is reading the
// cache).
class DecodeLine {
 public:
  DecodeLine(StepPricer& pricer, std::int64_t shortest, std::int64_t longest)
      : pricer_(pricer), lo_(shortest), hi_(std::max(longest, shortest + 1)) {}
  double seconds(std::int64_t batch, double mean_cached) {
    const double t0 = pricer_.seconds({InferencePhase::decode, batch, lo_});
    const double t1 = pricer_.seconds({InferencePhase::decode, batch, hi_});
    return t0 + (t1 - t0) * (mean_cached - static_cast<double>(lo_)) / static_cast<double>(hi_ - lo_);
  }

 private:
  StepPricer& pricer_;
  std::int64_t lo_, hi_;
};

struct EngineTotals {
  std::int64_t iterations = 0;
  std::int64_t decode_iterations = 0;
  double decode_sequences = 0.0;  // summed over decode iterations
};

// One replica's engine over its requests (in arrival order).
void serve(std::vector<Request*>& requests, std::int64_t max_batch, StepPricer& pricer, DecodeLine& decode,
           EngineTotals& totals) {
  std::deque<Request*> waiting;
  std::vector<Request*> running;
  std::size_t next = 0, finished = 0;
  double t = 0.0;
  while (finished < requests.size()) {
    while (next < requests.size() && requests[next]->arrival_s <= t) waiting.push_back(requests[next++]);
    if (waiting.empty() && running.empty()) {
      t = requests[next]->arrival_s;
      continue;
    }
    ++totals.iterations;
    const auto room = static_cast<std::size_t>(max_batch) - running.size();
    if (!waiting.empty() && room > 0) {  // prefill the arrivals the batch has room for
      const std::size_t k = std::min(room, waiting.size());
      std::int64_t tokens = 0;
      for (std::size_t i = 0; i < k; ++i) tokens += waiting[i]->prompt;
      const std::int64_t mean = (tokens + static_cast<std::int64_t>(k) - 1) / static_cast<std::int64_t>(k);
      const std::int64_t bucket = (mean + kPrefillTokenBucket - 1) / kPrefillTokenBucket * kPrefillTokenBucket;
      t += pricer.seconds({InferencePhase::prefill, static_cast<std::int64_t>(k), bucket});
      for (std::size_t i = 0; i < k; ++i) {
        Request* r = waiting.front();
        waiting.pop_front();
        r->first_token_s = t;
        r->generated = 1;
        if (r->generated == r->output) {
          r->done_s = t;
          ++finished;
        } else {
          running.push_back(r);
        }
      }
      continue;
    }
    double cached = 0.0;  // each running sequence holds its prompt and all but its newest token
    for (const Request* r : running) cached += static_cast<double>(r->prompt + r->generated - 1);
    const auto b = static_cast<std::int64_t>(running.size());
    t += decode.seconds(b, cached / static_cast<double>(b));
    ++totals.decode_iterations;
    totals.decode_sequences += static_cast<double>(b);
    std::vector<Request*> still;
    for (Request* r : running) {
      if (++r->generated == r->output) {
        r->done_s = t;
        ++finished;
      } else {
        still.push_back(r);
      }
    }
    running = std::move(still);
  }
}

Percentiles percentiles(std::vector<double> values) {
  Percentiles p;
  if (values.empty()) return p;
  std::sort(values.begin(), values.end());
  auto at = [&](double q) {
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
    return values[std::max<std::size_t>(rank, 1) - 1];  // nearest rank
  };
  p.p50 = at(0.50);
  p.p90 = at(0.90);
  p.p99 = at(0.99);
  double sum = 0.0;
  for (double v : values) sum += v;
  p.mean = sum / static_cast<double>(values.size());
  return p;
}

StreamReport serve_stream(const Scenario& s, StepPricer& pricer) {
  const RequestStream& stream = *s.workload.inference->requests;
  std::vector<Request> requests = draw_requests(stream);
  const std::int64_t replicas = s.workload.parallel.data;
  const std::int64_t shortest = stream.prompt_tokens.min;
  DecodeLine decode(pricer, shortest, stream.prompt_tokens.max + stream.output_tokens.max - 1);
  EngineTotals totals;
  for (std::int64_t r = 0; r < replicas; ++r) {  // round-robin dispatch
    std::vector<Request*> mine;
    for (std::size_t i = static_cast<std::size_t>(r); i < requests.size(); i += static_cast<std::size_t>(replicas))
      mine.push_back(&requests[i]);
    if (!mine.empty()) serve(mine, s.workload.inference->batch, pricer, decode, totals);
  }
  StreamReport out;
  out.requests = stream.count;
  out.rate_per_s = stream.rate_per_s;
  out.seed = stream.seed;
  out.max_batch = s.workload.inference->batch;
  out.iterations = totals.iterations;
  out.mean_batch =
      totals.decode_iterations ? totals.decode_sequences / static_cast<double>(totals.decode_iterations) : 0.0;
  std::vector<double> ttft, tpot, e2e;
  double first = requests.front().arrival_s, last = 0.0, tokens = 0.0;
  for (const Request& r : requests) {
    ttft.push_back(r.first_token_s - r.arrival_s);
    e2e.push_back(r.done_s - r.arrival_s);
    if (r.output > 1) tpot.push_back((r.done_s - r.first_token_s) / static_cast<double>(r.output - 1));
    last = std::max(last, r.done_s);
    tokens += static_cast<double>(r.output);
  }
  out.duration_s = last - first;
  out.output_tokens_per_s = out.duration_s > 0.0 ? tokens / out.duration_s : 0.0;
  out.ttft_s = percentiles(ttft);
  out.tpot_s = percentiles(tpot);
  out.e2e_s = percentiles(e2e);
  return out;
}

void fill_memory(const Scenario& s, InferenceReport& out) {
  const double capacity = rank_gpu_capacity_bytes(s, 0);
  const StageMemory& row = s.memory.front();
  out.weights_gib_per_gpu = item_bytes(row, "weights") / kGiB;
  out.kv_cache_gib_per_gpu = item_bytes(row, "kv_cache") / kGiB;
  out.gpu_memory_gib = capacity / kGiB;
  out.largest_batch_that_fits = largest_fitting_batch(s.workload, capacity);
}

void run_static_batch(const Scenario& s, StepPricer& pricer, InferenceReport& out) {
  const InferenceSpec& inf = *s.workload.inference;
  const double replicas = static_cast<double>(s.workload.parallel.data);
  out.prefill = pricer.replay_with_breakdown({InferencePhase::prefill, inf.batch, inf.prompt_tokens});
  out.ttft_s = out.prefill.time_s;
  out.prefill_tokens_per_s = replicas * static_cast<double>(inf.batch * inf.prompt_tokens) / out.ttft_s;
  if (inf.output_tokens > 1) {
    out.first_decode = pricer.replay_with_breakdown({InferencePhase::decode, inf.batch, inf.prompt_tokens});
    out.last_decode =
        pricer.replay_with_breakdown({InferencePhase::decode, inf.batch, inf.prompt_tokens + inf.output_tokens - 2});
    out.tpot_s = 0.5 * (out.first_decode.time_s + out.last_decode.time_s);
    out.decode_tokens_per_s = replicas * static_cast<double>(inf.batch) / out.tpot_s;
  }
  out.e2e_s = out.ttft_s + static_cast<double>(inf.output_tokens - 1) * out.tpot_s;
  out.output_tokens_per_s = replicas * static_cast<double>(inf.batch * inf.output_tokens) / out.e2e_s;
}

}  // namespace

InferenceReport run_inference(const Scenario& s) {
  const InferenceSpec& inf = *s.workload.inference;
  InferenceReport out;
  out.labels = s.labels;
  out.gpus = static_cast<int>(RankGrid(s.workload.parallel).world_size());
  out.replicas = s.workload.parallel.data;
  out.batch = inf.batch;
  out.prompt_tokens = inf.prompt_tokens;
  out.output_tokens = inf.output_tokens;
  out.dtype = std::string(to_string(s.workload.precision));
  out.kv_cache_dtype = std::string(to_string(inf.kv_cache_dtype));
  StepPricer pricer(s);
  if (inf.prompt_tokens > 0 && inf.output_tokens > 0) run_static_batch(s, pricer, out);
  // The decode roofline at the mean cached length of the static batch, or
  // of the stream's longest request.
  out.roofline_context = inf.prompt_tokens > 0 ? inf.prompt_tokens + inf.output_tokens / 2 : inf.context_tokens / 2;
  out.batch_search_limit = kBatchSearchLimit;
  const GpuSpec& gpu = rank0_gpu(s);
  out.gemm_compute_bound_batch = compute_bound_batch(s.workload, gpu, out.roofline_context, true);
  out.step_compute_bound_batch = compute_bound_batch(s.workload, gpu, out.roofline_context, false);
  fill_memory(s, out);
  if (inf.requests) out.stream = serve_stream(s, pricer);
  return out;
}

}  // namespace simctl
