#include "workloads/kineto_import.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "workloads/kineto_stream_waits.hpp"
#include "workloads/trace_check.hpp"
#include "workloads/trace_json_names.hpp"

namespace simctl {
// Named, not anonymous: the unity build compiles this file with others that
// have file-local helpers of the same names.
namespace kineto_detail {

using nlohmann::json;

constexpr double kSecondsPerUs = 1e-6;
constexpr std::size_t kStreamCount = trace_names::kStreams.size();
constexpr std::size_t stream_index(Stream s) { return static_cast<std::size_t>(s); }
// A gap the host left between two kernels of a stream, shorter than this, is
// the GPU's own launch latency, which the compute model already prices.
constexpr double kMinLaunchGapUs = 1.0;
constexpr std::size_t kMaxNameLength = 96;
// More ranks than the largest runs simctl replays (100,000 GPUs) is a
// corrupt or foreign file, not a job.
constexpr std::int64_t kMaxRanks = 131072;

[[noreturn]] void fail(const std::string& file, const std::string& what) { throw KinetoError(file + ": " + what); }

// A field of an object as text: "" when absent or not a string (a fuzzed or
// foreign trace may hold anything anywhere).
std::string text_field(const json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string name_of(const json& e) { return text_field(e, "name"); }
std::string category_of(const json& e) { return text_field(e, "cat"); }

// A whole number that fits, else nothing.
std::optional<std::int64_t> whole(const json& value) {
  if (!value.is_number()) return std::nullopt;
  const double v = value.get<double>();
  if (!(v >= -9.0e15 && v <= 9.0e15)) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

std::string event_label(const json& e, std::size_t index) {
  std::string name = name_of(e);
  if (name.size() > 60) name = name.substr(0, 57) + "...";
  return "traceEvents[" + std::to_string(index) + "] ('" + name + "')";
}

// Both spellings: Kineto's old categories (Kernel, Runtime, Memcpy) and new.
bool is_runtime(const std::string& cat) { return cat == "cuda_runtime" || cat == "Runtime" || cat == "cuda_driver"; }
enum class GpuKind { kernel, memcpy, memset, none };
GpuKind gpu_kind(const std::string& cat) {
  if (cat == "kernel" || cat == "Kernel") return GpuKind::kernel;
  if (cat == "gpu_memcpy" || cat == "Memcpy") return GpuKind::memcpy;
  if (cat == "gpu_memset" || cat == "Memset") return GpuKind::memset;
  return GpuKind::none;
}

double number(const json& e, const char* key, const std::string& file, std::size_t index) {
  const auto it = e.find(key);
  if (it == e.end() || !it->is_number()) {
    fail(file, event_label(e, index) + " has no numeric '" + key + "'");
  }
  return it->get<double>();
}

std::optional<std::int64_t> integer_arg(const json& e, const char* key) {
  const auto args = e.find("args");
  if (args == e.end() || !args->is_object()) return std::nullopt;
  const auto it = args->find(key);
  return it == args->end() ? std::nullopt : whole(*it);
}

struct GpuEvent {
  double start_us = 0, end_us = 0;
  double launch_end_us = NAN;  // when its launch call returned on the host
  GpuKind kind = GpuKind::kernel;
  std::size_t index = 0;
  const json* event = nullptr;
  std::int64_t correlation = -1;  // its launch call's correlation id; -1: none recorded
};

struct StepWindow {
  std::int64_t number = 0;
  double ts_us = 0, dur_us = 0;
};

struct RankInfo {
  std::int64_t rank = 0, world = 1;
};

RankInfo rank_info(const KinetoFile& f, bool required) {
  const auto info = f.document.find("distributedInfo");
  if (info == f.document.end() || !info->is_object() || !info->contains("rank")) {
    if (required) fail(f.label, "no distributedInfo.rank: with several files each must say which rank it is");
    return {};
  }
  const auto rank = whole((*info)["rank"]);
  const auto world = info->contains("world_size") ? whole((*info)["world_size"]) : std::optional<std::int64_t>(1);
  if (!rank || !world) fail(f.label, "distributedInfo's rank and world_size must be whole numbers");
  RankInfo out{*rank, *world};
  if (out.world > kMaxRanks)
    fail(f.label, "distributedInfo says a world of " + std::to_string(out.world) + " ranks; at most " +
                      std::to_string(kMaxRanks) + " are imported");
  if (out.rank < 0 || out.world < 1 || out.rank >= out.world)
    fail(f.label, "distributedInfo says rank " + std::to_string(out.rank) + " of " + std::to_string(out.world));
  return out;
}

const json& events_of(const KinetoFile& f) {
  const auto it = f.document.find("traceEvents");
  if (it == f.document.end() || !it->is_array()) fail(f.label, "no traceEvents array: not a Kineto trace");
  return *it;
}

// ProfilerStep#K by number, else the median by duration.
StepWindow pick_step(const KinetoFile& f, const json& events, std::optional<std::int64_t> wanted) {
  std::vector<StepWindow> steps;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const json& e = events[i];
    const std::string name = name_of(e);
    if (name.rfind("ProfilerStep#", 0) != 0 || text_field(e, "ph") != "X") continue;
    // Newer PyTorch also projects each step onto the GPU timeline
    // (gpu_user_annotation), a span that can end before the step's last
    // kernel: the step is the host's range.
    if (category_of(e) == "gpu_user_annotation") continue;
    std::int64_t step = 0;
    const char* digits = name.c_str() + 13;
    const auto [end, error] = std::from_chars(digits, name.c_str() + name.size(), step);
    if (error != std::errc() || end != name.c_str() + name.size()) continue;  // not a step number
    steps.push_back({step, number(e, "ts", f.label, i), number(e, "dur", f.label, i)});
  }
  if (steps.empty()) {
    if (wanted) fail(f.label, "has no ProfilerStep#" + std::to_string(*wanted) + " (no ProfilerStep at all)");
    return {0, -INFINITY, INFINITY};
  }
  if (wanted) {
    for (const StepWindow& s : steps) {
      if (s.number == *wanted) return s;
    }
    std::string have;
    for (const StepWindow& s : steps) have += (have.empty() ? "" : ", ") + std::to_string(s.number);
    fail(f.label, "has no ProfilerStep#" + std::to_string(*wanted) + "; it has steps " + have);
  }
  std::vector<StepWindow> by_duration = steps;
  std::stable_sort(by_duration.begin(), by_duration.end(),
                   [](const StepWindow& a, const StepWindow& b) { return a.dur_us < b.dur_us; });
  return by_duration[(by_duration.size() - 1) / 2];
}

// The GPU work the step launched: kernels, copies and memsets whose launch
// call (matched by correlation id) lies in the step; those without a
// recorded launch by their own start.
std::vector<GpuEvent> step_gpu_events(const KinetoFile& f, const json& events, const StepWindow& step) {
  std::unordered_map<std::int64_t, std::pair<double, double>> launches;  // correlation -> (ts, end)
  for (std::size_t i = 0; i < events.size(); ++i) {
    const json& e = events[i];
    if (!is_runtime(category_of(e))) continue;
    if (const auto c = integer_arg(e, "correlation")) {
      const double ts = number(e, "ts", f.label, i);
      launches[*c] = {ts, ts + number(e, "dur", f.label, i)};
    }
  }
  std::vector<GpuEvent> out;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const json& e = events[i];
    const GpuKind kind = gpu_kind(category_of(e));
    if (kind == GpuKind::none) continue;
    GpuEvent g{number(e, "ts", f.label, i), 0, NAN, kind, i, &e, integer_arg(e, "correlation").value_or(-1)};
    const double dur = number(e, "dur", f.label, i);
    if (dur < 0) fail(f.label, event_label(e, i) + " has a negative duration (" + std::to_string(dur) + " us)");
    g.end_us = g.start_us + dur;
    double launched = g.start_us;
    if (const auto c = integer_arg(e, "correlation"); c && launches.count(*c)) {
      launched = launches[*c].first;
      g.launch_end_us = launches[*c].second;
    }
    // Without a ProfilerStep the window is unbounded (ts -inf, dur +inf).
    const bool unbounded = !std::isfinite(step.ts_us);
    if (unbounded || (launched >= step.ts_us && launched <= step.ts_us + step.dur_us)) out.push_back(g);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const GpuEvent& a, const GpuEvent& b) { return a.start_us < b.start_us; });
  return out;
}

bool is_nccl(const std::string& name) { return name.find("nccl") != std::string::npos; }

std::string short_name(std::string name) {
  if (name.rfind("void ", 0) == 0) name = name.substr(5);
  for (auto at = name.find("(anonymous namespace)::"); at != std::string::npos;
       at = name.find("(anonymous namespace)::"))
    name.erase(at, 23);
  if (const auto paren = name.find('('); paren != std::string::npos && paren > 0) name = name.substr(0, paren);
  if (name.size() > kMaxNameLength) name = name.substr(0, kMaxNameLength);
  return name;
}

bool contains_any(const std::string& text, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return text.find(w) != std::string::npos; });
}

ComputeKind kernel_class(const std::string& lower) {
  if (contains_any(lower, {"flash", "fmha", "attention", "sdpa"})) return ComputeKind::attention;
  if (contains_any(lower, {"gemm", "sm80_xmma", "sm90_xmma", "cutlass", "wgrad", "dgrad", "fprop", "conv"}))
    return ComputeKind::gemm;
  if (contains_any(lower, {"norm", "bn_fw", "bn_bw"})) return ComputeKind::norm;
  if (lower.find("softmax") != std::string::npos) return ComputeKind::softmax;
  if (lower.find("embedding") != std::string::npos) return ComputeKind::embedding;
  if (contains_any(lower, {"adam", "multi_tensor_apply", "sgd"})) return ComputeKind::optimizer;
  return ComputeKind::elementwise;
}

DType kernel_dtype(const std::string& lower, DType fallback) {
  if (contains_any(lower, {"bf16", "bfloat16"})) return DType::bf16;
  if (contains_any(lower, {"e4m3", "e5m2", "fp8"})) return DType::fp8;
  if (contains_any(lower, {"tf32", "s1688"})) return DType::tf32;
  if (contains_any(lower, {"f16", "half", "h1688", "h884"})) return DType::fp16;
  return fallback;
}

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// PyTorch's dtype names, as record_param_comms and NCCL kernels carry them.
std::optional<double> element_bytes(const std::string& dtype) {
  static const std::map<std::string, double, std::less<>> sizes{
      {"Float", 4}, {"Half", 2}, {"BFloat16", 2}, {"Double", 8}, {"Int", 4},           {"Long", 8},
      {"Byte", 1},  {"Char", 1}, {"Bool", 1},     {"Short", 2},  {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? std::nullopt : std::optional<double>(it->second);
}

struct CollectiveKind {
  CollectiveOp op;
  bool output_sized;  // all-gather: the output buffer, as nccl-tests counts it
};

std::optional<CollectiveKind> collective_kind(const std::string& name) {
  static const std::map<std::string, CollectiveKind, std::less<>> kinds{
      {"allreduce", {CollectiveOp::all_reduce, false}},
      {"all_reduce", {CollectiveOp::all_reduce, false}},
      {"allreduce_coalesced", {CollectiveOp::all_reduce, false}},
      {"allgather", {CollectiveOp::all_gather, true}},
      {"all_gather", {CollectiveOp::all_gather, true}},
      {"_allgather_base", {CollectiveOp::all_gather, true}},
      {"allgather_into_tensor_coalesced", {CollectiveOp::all_gather, true}},
      {"reduce_scatter", {CollectiveOp::reduce_scatter, false}},
      {"_reduce_scatter_base", {CollectiveOp::reduce_scatter, false}},
      {"reduce_scatter_tensor_coalesced", {CollectiveOp::reduce_scatter, false}},
      {"broadcast", {CollectiveOp::broadcast, false}},
      {"reduce", {CollectiveOp::reduce, false}},
      {"all_to_all", {CollectiveOp::all_to_all, false}},
      {"alltoall", {CollectiveOp::all_to_all, false}},
      {"alltoall_base", {CollectiveOp::all_to_all, false}},
  };
  const auto it = kinds.find(name);
  return it == kinds.end() ? std::nullopt : std::optional<CollectiveKind>(it->second);
}

std::vector<std::uint32_t> parse_rank_list(const json& value) {
  std::vector<std::uint32_t> ranks;
  if (value.is_array()) {
    for (const json& r : value) {
      const auto rank = whole(r);
      if (!rank || *rank < 0 || *rank >= kMaxRanks) return {};
      ranks.push_back(static_cast<std::uint32_t>(*rank));
    }
    return ranks;
  }
  std::string text = value.is_string() ? value.get<std::string>() : "";
  for (char& c : text) {
    if (c == '[' || c == ']' || c == ',') c = ' ';
  }
  std::size_t at = 0;
  while (at < text.size()) {
    const auto digit = text.find_first_of("0123456789", at);
    if (digit == std::string::npos) break;
    std::uint32_t rank = 0;
    const auto [end, error] = std::from_chars(text.data() + digit, text.data() + text.size(), rank);
    if (error != std::errc() || rank >= kMaxRanks) return {};
    ranks.push_back(rank);
    at = static_cast<std::size_t>(end - text.data());
  }
  return ranks;
}

// One file's step as ops, with the collectives it calls per group (to
// check the ranks agree).
struct ImportedRank {
  std::vector<Op> ops;
  std::map<std::uint32_t, std::vector<std::pair<CollectiveOp, double>>> calls;  // group -> (op, bytes) in order
  std::size_t gpu_ops = 0;
};

class RankBuilder {
 public:
  RankBuilder(const KinetoFile& f, RankInfo info, const KinetoImportOptions& options,
              std::vector<std::vector<std::uint32_t>>& groups)
      : file_(f), info_(info), options_(options), groups_(groups) {
    // The innermost CPU op shares its External id with the kernel it
    // launched: record_param_comms for an NCCL kernel, aten::mm for a GEMM.
    for (const json& e : events_of(f)) {
      const std::string name = name_of(e);
      const auto id = integer_arg(e, "External id");
      if (!id) continue;
      if (name == "record_param_comms") comms_[*id] = &e["args"];
      if (gemm_op(name)) matmuls_[*id] = &e["args"];
    }
    waits_ = stream_waits(events_of(f));
  }

  ImportedRank build(const std::vector<GpuEvent>& gpu, const StepWindow& step) {
    assign_compute_streams(gpu);
    if (!gpu.empty() && std::isfinite(step.ts_us) && gpu.front().start_us > step.ts_us) {
      add_host(Stream::compute, "step_start (host before the first kernel)", step.ts_us, gpu.front().start_us);
    }
    for (const GpuEvent& g : gpu) add_gpu(g);
    out_.gpu_ops = gpu.size();
    return std::move(out_);
  }

 private:
  struct Observed {
    double end_us;
    OpIndex op;
  };

  void add_gpu(const GpuEvent& g) {
    const json& e = *g.event;
    const std::string name = name_of(e);
    Op op;
    op.name = short_name(name);
    op.stream = stream_of(g, name);
    op.work = work_of(g, name, op);
    add_launch_gap(op.stream, g);
    if (waits_) {
      for (OpIndex dep : waits_->waits_of(cuda_stream(g), g.correlation)) {
        if (out_.ops[dep].stream != op.stream) op.deps.push_back(dep);
      }
      waits_->add_gpu_op(cuda_stream(g), g.correlation, static_cast<OpIndex>(out_.ops.size()));
    }
    append(std::move(op), g.start_us, g.end_us);
  }

  static bool is_host_copy(const GpuEvent& g, const std::string& name) {
    return g.kind == GpuKind::memcpy &&
           (name.find("HtoD") != std::string::npos || name.find("DtoH") != std::string::npos);
  }

  static std::int64_t cuda_stream(const GpuEvent& g) {
    if (const auto s = integer_arg(*g.event, "stream")) return *s;
    const auto tid = g.event->find("tid");
    return tid != g.event->end() ? whole(*tid).value_or(0) : 0;
  }

  // A rank's compute kernels may run on several CUDA streams at once (a
  // side stream for FSDP's copies, say). The busiest is the compute
  // stream, the next two the overlap and prefetch streams, so what ran
  // side by side still does; any further ones join the compute stream.
  void assign_compute_streams(const std::vector<GpuEvent>& gpu) {
    std::map<std::int64_t, double> busy_us;
    for (const GpuEvent& g : gpu) {
      const std::string name = name_of(*g.event);
      if ((g.kind == GpuKind::kernel && is_nccl(name)) || is_host_copy(g, name)) continue;
      busy_us[cuda_stream(g)] += g.end_us - g.start_us;
    }
    std::vector<std::pair<double, std::int64_t>> by_busy;
    for (const auto& [stream, us] : busy_us) by_busy.push_back({-us, stream});
    std::sort(by_busy.begin(), by_busy.end());
    const Stream sides[] = {Stream::compute, Stream::overlap, Stream::prefetch};
    for (std::size_t i = 0; i < by_busy.size(); ++i)
      compute_stream_[by_busy[i].second] = i < std::size(sides) ? sides[i] : Stream::compute;
  }

  Stream stream_of(const GpuEvent& g, const std::string& name) const {
    if (g.kind == GpuKind::kernel && is_nccl(name)) return Stream::communication;
    if (is_host_copy(g, name)) return Stream::copy;
    const auto it = compute_stream_.find(cuda_stream(g));
    return it != compute_stream_.end() ? it->second : Stream::compute;
  }

  std::variant<ComputeWork, CollectiveCall, CopyCall, PeerTransfer, HostWork> work_of(const GpuEvent& g,
                                                                                      const std::string& name, Op& op) {
    const json& e = *g.event;
    const double seconds = (g.end_us - g.start_us) * kSecondsPerUs;
    const double bytes = static_cast<double>(integer_arg(e, "bytes").value_or(0));
    if (bytes < 0) fail(file_.label, event_label(e, g.index) + ": negative bytes");
    if (op.stream == Stream::copy) {
      op.phase = OpPhase::host_copy;
      return CopyCall{
          name.find("HtoD") != std::string::npos ? CopyDirection::host_to_device : CopyDirection::device_to_host, bytes,
          false};
    }
    if (op.stream == Stream::communication) {
      if (auto call = collective(g)) {
        op.phase = OpPhase::gradient_sync;
        return *call;
      }
    }
    ComputeWork w;
    const std::string lower = lowercase(name);
    w.kind = g.kind == GpuKind::kernel && op.stream != Stream::communication ? kernel_class(lower)
             : op.stream == Stream::communication                            ? ComputeKind::other
                                                                             : ComputeKind::elementwise;
    w.dtype = kernel_dtype(lower, options_.compute_dtype);
    // A device copy reads and writes its bytes; a memset writes them.
    w.memory_bytes = g.kind == GpuKind::memcpy ? 2 * bytes : bytes;
    w.measured_seconds = std::max(seconds, 1e-12);
    if (w.kind == ComputeKind::gemm) size_gemm(e, w);
    return w;
  }

  // The profile's "Stream Wait Event" entries (cuda_sync), or nothing where
  // it has none, or any whose recording call it does not name (then none is
  // exact and the importer keeps its guess).
  static std::optional<KinetoStreamWaits> stream_waits(const json& events) {
    std::vector<KinetoStreamWait> waits;
    for (const json& e : events) {
      if (category_of(e) != "cuda_sync" || name_of(e) != "Stream Wait Event") continue;
      const auto stream = integer_arg(e, "stream"), correlation = integer_arg(e, "correlation");
      const auto producer = integer_arg(e, "wait_on_stream");
      const auto record = integer_arg(e, "wait_on_cuda_event_record_corr_id");
      if (!stream || !correlation || !producer || !record || *record < 0) return std::nullopt;
      waits.push_back({*stream, *correlation, *producer, *record});
    }
    if (waits.empty()) return std::nullopt;
    return KinetoStreamWaits(waits);
  }

  static bool gemm_op(const std::string& name) {
    return name == "aten::mm" || name == "aten::addmm" || name == "aten::bmm" || name == "aten::baddbmm";
  }

  // A GEMM whose aten op recorded its input shapes (record_shapes=True):
  // its m, n, k, FLOPs and bytes, so another GPU rescales it by the compute
  // model's estimates rather than by peak alone.
  void size_gemm(const json& kernel, ComputeWork& w) const {
    const auto id = integer_arg(kernel, "External id");
    const auto found = id ? matmuls_.find(*id) : matmuls_.end();
    if (found == matmuls_.end()) return;
    const json& args = *found->second;
    const auto dims = args.find("Input Dims");
    if (dims == args.end() || !dims->is_array() || dims->size() < 2) return;
    const auto operands = gemm_operands(*dims);
    if (!operands) return;
    const auto& [shape_a, shape_b, a] = *operands;
    const bool batched = shape_a.size() == 3;
    const std::int64_t batch = batched ? shape_a[0] : 1, m = shape_a[batched], k = shape_a[batched + 1],
                       n = shape_b[batched + 1];
    if (batch < 1 || m < 1 || n < 1 || k < 1) return;
    w.m = m;
    w.n = n;
    w.k = k;
    w.batch = batch;
    if (const auto dtype = tensor_dtype(args, a)) w.dtype = *dtype;
    const double element = w.dtype == DType::fp32 || w.dtype == DType::tf32 ? 4.0 : w.dtype == DType::fp8 ? 1.0 : 2.0;
    const auto b = static_cast<double>(batch), dm = static_cast<double>(m), dn = static_cast<double>(n),
               dk = static_cast<double>(k);
    w.flops = 2.0 * dm * dn * dk * b;
    w.memory_bytes = (dm * dk + dk * dn + dm * dn) * b * element;
  }

  struct GemmOperands {
    std::vector<std::int64_t> a, b;
    std::size_t first_input = 0;  // where A sits among the op's inputs
  };

  // The last adjacent pair of 2-D (or 3-D, batched) inputs whose inner
  // sizes agree: addmm and baddbmm put the added term first and their
  // scalars last.
  static std::optional<GemmOperands> gemm_operands(const json& dims) {
    std::optional<GemmOperands> found;
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
      auto first = tensor_shape(dims[i]), second = tensor_shape(dims[i + 1]);
      const std::size_t rank = first.size();
      if ((rank != 2 && rank != 3) || second.size() != rank || first[rank - 1] != second[rank - 2]) continue;
      if (rank == 3 && first[0] != second[0]) continue;
      found = GemmOperands{std::move(first), std::move(second), i};
    }
    return found;
  }

  static std::vector<std::int64_t> tensor_shape(const json& dims) {
    std::vector<std::int64_t> shape;
    if (!dims.is_array()) return shape;
    for (const json& d : dims) {
      const auto v = whole(d);
      if (!v || *v < 0 || *v > (std::int64_t{1} << 32)) return {};
      shape.push_back(*v);
    }
    return shape;
  }

  // PyTorch's names for a tensor's element type in "Input type".
  static std::optional<DType> tensor_dtype(const json& args, std::size_t input) {
    const auto types = args.find("Input type");
    if (types == args.end() || !types->is_array() || types->size() <= input) return std::nullopt;
    const std::string type = (*types)[input].is_string() ? (*types)[input].get<std::string>() : "";
    if (type == "float") return DType::fp32;
    if (type == "c10::BFloat16") return DType::bf16;
    if (type == "c10::Half") return DType::fp16;
    if (type.find("Float8") != std::string::npos) return DType::fp8;
    return std::nullopt;
  }

  // The sizes an NCCL kernel records itself (PyTorch 2.1+), else those of
  // the record_param_comms op that launched it (PyTorch 2.0).
  const json* sized_args(const json& e) const {
    const auto args = e.find("args");
    if (args != e.end() && args->contains("Collective name")) return &*args;
    const auto id = integer_arg(e, "External id");
    const auto comms = id ? comms_.find(*id) : comms_.end();
    if (comms != comms_.end() && comms->second->contains("Collective name")) return comms->second;
    return nullptr;
  }

  std::optional<CollectiveCall> collective(const GpuEvent& g) {
    const json& e = *g.event;
    const json* args = sized_args(e);
    if (!args) return std::nullopt;
    const auto kind = collective_kind(text_field(*args, "Collective name"));
    if (!kind) return std::nullopt;  // send, recv, barrier: kept as measured kernels
    const std::string dtype = text_field(*args, "dtype");
    const auto size = element_bytes(dtype);
    if (!size) fail(file_.label, event_label(e, g.index) + ": unknown dtype '" + dtype + "'");
    const char* count = kind->output_sized ? "Out msg nelems" : "In msg nelems";
    const auto elements = args->contains(count) ? whole((*args)[count]) : std::nullopt;
    if (elements && *elements < 0)
      fail(file_.label, event_label(e, g.index) + ": a negative message size (" + count + ")");
    if (!elements) fail(file_.label, event_label(e, g.index) + ": an NCCL collective without its message size");
    CollectiveCall call;
    call.op = kind->op;
    call.bytes = static_cast<double>(*elements) * *size;
    call.group = group_of(e, *args, g.index);
    out_.calls[call.group].push_back({call.op, call.bytes});
    return call;
  }

  std::uint32_t group_of(const json& e, const json& args, std::size_t index) {
    std::vector<std::uint32_t> members;
    if (args.contains("Process Group Ranks")) members = parse_rank_list(args["Process Group Ranks"]);
    if (members.empty()) {
      const std::int64_t size = args.contains("Group size") ? whole(args["Group size"]).value_or(0) : 0;
      if (size != info_.world)
        fail(file_.label, event_label(e, index) + ": a group of " + std::to_string(size) +
                              " without its ranks (Process Group Ranks), in a world of " + std::to_string(info_.world));
      for (std::int64_t r = 0; r < info_.world; ++r) members.push_back(static_cast<std::uint32_t>(r));
    }
    if (std::find(members.begin(), members.end(), static_cast<std::uint32_t>(info_.rank)) == members.end())
      fail(file_.label,
           event_label(e, index) + ": its group does not hold this file's rank " + std::to_string(info_.rank));
    const auto it = std::find(groups_.begin(), groups_.end(), members);
    if (it != groups_.end()) return static_cast<std::uint32_t>(it - groups_.begin());
    groups_.push_back(members);
    return static_cast<std::uint32_t>(groups_.size() - 1);
  }

  // The host's share of a gap on a stream: from the previous op's end to
  // when the launch call returned (or the kernel began, if sooner). A gap
  // the GPU spent waiting for another stream is left to the dependencies.
  void add_launch_gap(Stream stream, const GpuEvent& g) {
    const auto& on_stream = observed_[stream_index(stream)];
    if (on_stream.empty() || std::isnan(g.launch_end_us)) return;
    const double previous_end = on_stream.back().end_us;
    const double host_bound = std::min(g.start_us, g.launch_end_us) - previous_end;
    if (host_bound >= kMinLaunchGapUs) add_host(stream, "launch_gap", previous_end, previous_end + host_bound);
  }

  void add_host(Stream stream, std::string name, double start_us, double end_us) {
    Op op;
    op.name = std::move(name);
    op.stream = stream;
    op.work = HostWork{(end_us - start_us) * kSecondsPerUs, 0.0};
    append(std::move(op), start_us, end_us);
  }

  // Where the trace records its stream waits, those are an op's only waits
  // beyond its stream (added by add_gpu). Else each op waits for the latest
  // op of every other stream that had ended when it started: what the
  // profile shows it could have waited for.
  void append(Op op, double start_us, double end_us) {
    const auto index = static_cast<OpIndex>(out_.ops.size());
    for (std::size_t s = 0; !waits_ && s < observed_.size(); ++s) {
      if (s == stream_index(op.stream)) continue;
      const auto& list = observed_[s];
      auto it = std::upper_bound(list.begin(), list.end(), start_us,
                                 [](double t, const Observed& o) { return t < o.end_us; });
      if (it == list.begin()) continue;
      const OpIndex dep = std::prev(it)->op;
      if (dep != last_dep_[stream_index(op.stream)][s]) op.deps.push_back(dep);
      last_dep_[stream_index(op.stream)][s] = dep;
    }
    observed_[stream_index(op.stream)].push_back({end_us, index});
    out_.ops.push_back(std::move(op));
  }

  const KinetoFile& file_;
  RankInfo info_;
  const KinetoImportOptions& options_;
  std::vector<std::vector<std::uint32_t>>& groups_;
  std::unordered_map<std::int64_t, const json*> comms_;    // External id -> record_param_comms' args
  std::unordered_map<std::int64_t, const json*> matmuls_;  // External id -> aten::mm/addmm/bmm/baddbmm's args
  std::map<std::int64_t, Stream> compute_stream_;          // CUDA stream -> the rank's stream its kernels run on
  std::optional<KinetoStreamWaits> waits_;                 // the trace's recorded stream waits, if it has them
  ImportedRank out_;
  std::array<std::vector<Observed>, kStreamCount> observed_;
  std::array<std::array<OpIndex, kStreamCount>, kStreamCount> last_dep_ = filled_deps();

  static std::array<std::array<OpIndex, kStreamCount>, kStreamCount> filled_deps() {
    std::array<std::array<OpIndex, kStreamCount>, kStreamCount> a{};
    for (auto& row : a) row.fill(static_cast<OpIndex>(-1));
    return a;
  }
};

std::string describe_call(CollectiveOp op, double bytes) {
  return std::string(to_string(op)) + " of " + std::to_string(static_cast<long long>(bytes)) + " bytes";
}

// The k-th collective of a group must be the same call on every member.
void check_agreement(const std::vector<ImportedRank>& ranks, const std::vector<KinetoFile>& files,
                     const std::vector<std::vector<std::uint32_t>>& groups) {
  for (std::uint32_t g = 0; g < groups.size(); ++g) {
    const std::size_t first =
        std::find_if(ranks.begin(), ranks.end(), [g](const ImportedRank& r) { return r.calls.count(g) > 0; }) -
        ranks.begin();
    for (std::size_t f = first + 1; f < ranks.size(); ++f) {
      const auto theirs = ranks[f].calls.find(g);
      if (theirs == ranks[f].calls.end()) continue;
      const auto& mine = ranks[first].calls.at(g);
      for (std::size_t k = 0; k < std::max(mine.size(), theirs->second.size()); ++k) {
        const bool same = k < mine.size() && k < theirs->second.size() && mine[k] == theirs->second[k];
        if (same) continue;
        fail(files[f].label,
             "collective " + std::to_string(k) + " on group " + std::to_string(g) + " is " +
                 (k < theirs->second.size() ? describe_call(theirs->second[k].first, theirs->second[k].second)
                                            : std::string("missing")) +
                 " but " + files[first].label + " has " +
                 (k < mine.size() ? describe_call(mine[k].first, mine[k].second) : std::string("none")) +
                 "; the files must be the same step of one run");
      }
    }
  }
}

std::string device_name(const json& document) {
  const auto props = document.find("deviceProperties");
  if (props == document.end() || !props->is_array() || props->empty()) return "";
  return text_field(props->front(), "name");
}

KinetoImport import_files(const std::vector<KinetoFile>& files, const KinetoImportOptions& options) {
  if (files.empty()) throw KinetoError("no Kineto trace given");
  KinetoImport out;
  std::vector<ImportedRank> rank_ops;
  std::vector<RankInfo> infos;
  std::map<std::int64_t, std::size_t> file_of_rank;
  std::vector<std::vector<std::uint32_t>> groups;
  for (const KinetoFile& f : files) {
    const RankInfo info = rank_info(f, files.size() > 1);
    if (!infos.empty() && info.world != infos.front().world)
      fail(f.label, "world size " + std::to_string(info.world) + " differs from " + files.front().label + "'s " +
                        std::to_string(infos.front().world));
    if (!file_of_rank.emplace(info.rank, infos.size()).second)
      fail(f.label, "rank " + std::to_string(info.rank) + " is also " + files[file_of_rank[info.rank]].label + "'s");
    const json& events = events_of(f);
    const StepWindow step = pick_step(f, events, options.step);
    ImportedRank ops = RankBuilder(f, info, options, groups).build(step_gpu_events(f, events, step), step);
    out.steps.push_back(
        {f.label, step.number, std::isfinite(step.dur_us) ? step.dur_us * kSecondsPerUs : 0.0, ops.gpu_ops});
    rank_ops.push_back(std::move(ops));
    infos.push_back(info);
  }
  check_agreement(rank_ops, files, groups);

  const std::uint32_t ranks = options.ranks.value_or(static_cast<std::uint32_t>(infos.front().world));
  if (ranks == 0 || ranks > kMaxRanks)
    throw KinetoError("--ranks " + std::to_string(ranks) + ": write 1 to " + std::to_string(kMaxRanks) + " ranks");
  for (const auto& group : groups) {
    for (std::uint32_t member : group) {
      if (member >= ranks)
        fail(files.front().label, "a process group holds rank " + std::to_string(member) + " but " +
                                      std::to_string(ranks) + " ranks are written; pass --ranks " +
                                      std::to_string(infos.front().world));
    }
  }
  for (ImportedRank& r : rank_ops) out.trace.programs.push_back(std::move(r.ops));
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const auto own = file_of_rank.find(r);
    const auto program = own != file_of_rank.end() ? own->second : r % files.size();
    out.trace.ranks.push_back(RankTrace{static_cast<std::uint32_t>(program), {}, {}});
  }
  out.trace.groups = std::move(groups);
  out.trace.compute_dtype = options.compute_dtype;
  out.trace.measured_on = options.measured_on;
  out.description = "Kineto import: " + std::to_string(files.size()) + " file(s), step #" +
                    std::to_string(out.steps.front().number) + ", " + std::to_string(ranks) + " ranks, measured on " +
                    options.measured_on;
  check_trace(out.trace, files.front().label);
  return out;
}

}  // namespace kineto_detail

std::string kineto_device_name(const nlohmann::json& document) { return kineto_detail::device_name(document); }

KinetoImport import_kineto(const std::vector<KinetoFile>& files, const KinetoImportOptions& options) {
  return kineto_detail::import_files(files, options);
}

}  // namespace simctl
