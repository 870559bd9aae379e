#include "sim/scenario/scenario.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>

#include "sim/config/config_node.hpp"
#include "sim/config/config_schema.hpp"
#include "sim/config/path_check.hpp"
#include "sim/scenario/attention_choice.hpp"
#include "sim/scenario/collective_settings.hpp"
#include "sim/scenario/fp8_layout_choice.hpp"
#include "sim/scenario/host_parts_reach.hpp"
#include "sim/scenario/kernel_factor_choice.hpp"
#include "sim/scenario/stragglers.hpp"
#include "sim/scenario/trace_workload.hpp"
#include "sim/topology/system_config.hpp"
#include "workloads/data_parallel_trace.hpp"
#include "workloads/ddp_trace.hpp"
#include "workloads/inference_config.hpp"
#include "workloads/parallel_trace.hpp"
#include "workloads/rank_grid.hpp"
#include "workloads/trace_size.hpp"

namespace simctl {
namespace {

// A section is either an inline mapping or the path of a file (relative to
// the config that names it) whose top level holds the same key.
// Overrides below `key` are written into the loaded file's copy of it.
ConfigNode section(const ConfigNode& root, const std::string& key, const ConfigOverrides& overrides) {
  const ConfigNode value = root.child(key);
  if (value.is_map()) return value;
  if (!value.is_scalar()) value.fail("expected an inline mapping or the path of a YAML file");
  namespace fs = std::filesystem;
  const fs::path base = fs::path(root.file()).parent_path();
  const fs::path file = base / value.as_string();
  if (const std::string why = file_problem(file); !why.empty()) value.fail("file '" + file.string() + "' " + why);
  const ConfigNode loaded = ConfigNode::load_file(file.string());
  if (!loaded.has(key)) loaded.fail("expected a top-level '" + key + ":' mapping in this file");
  const ConfigNode section_node = loaded.child(key);
  apply_overrides(section_node.yaml(), key, overrides);
  return section_node;
}

// Splits overrides into those written into the run config itself and those
// that reach into a system or workload file it names (applied by section()).
ConfigOverrides apply_root_overrides(const ConfigNode& root, const ConfigOverrides& overrides) {
  ConfigOverrides into_files, into_root;
  for (const ConfigOverride& o : overrides) {
    const std::string key = top_level_key(o.path);
    const bool names_file = (key == "system" || key == "workload") && root.has(key) && root.child(key).is_scalar();
    (names_file && o.path != key ? into_files : into_root).push_back(o);
  }
  apply_overrides(root.yaml(), "", into_root);
  return into_files;
}

// Whether an override changes what load_system and the stragglers build.
bool reaches_system(const ConfigOverrides& overrides) {
  return std::any_of(overrides.begin(), overrides.end(), [](const ConfigOverride& o) {
    const std::string key = top_level_key(o.path);
    return key == "system" || key == "stragglers";
  });
}

// The field to blame when the plan needs more GPUs than the system has: the
// largest dimension the user wrote.
ConfigNode world_size_field(const ConfigNode& workload_node, const ParallelPlan& p) {
  const ConfigNode parallel = workload_node.child("parallel");
  if (p.tensor == 1 && p.pipeline == 1 && p.context == 1) return parallel.child("data");
  if (p.context > p.pipeline && p.context >= p.tensor && p.context >= p.data) return parallel.child("context");
  if (p.pipeline >= p.tensor && p.pipeline >= p.data) return parallel.child("pipeline");
  if (p.tensor >= p.data) return parallel.child("tensor");
  return parallel.has("data") ? parallel.child("data") : parallel;
}

// `parallel.gpus_per_node: N` as a GPU list: the first N GPUs of each node
// in node order (GPUs are numbered node-major), rank r on the r-th of them.
void place_ranks_per_node(const ConfigNode& workload_node, WorkloadSpec& workload, const System& system) {
  ParallelPlan& p = workload.parallel;
  if (p.gpus_per_node == 0) return;
  std::vector<std::uint32_t> gpus;
  std::vector<std::int64_t> taken_on_node(static_cast<std::size_t>(std::max(system.num_nodes(), 0)), 0);
  for (std::uint32_t g = 0; g < system.gpus().size() && static_cast<std::int64_t>(gpus.size()) < p.world_size(); ++g) {
    const int node = system.part(system.gpus()[g]).node;
    if (node != kNoNode && taken_on_node[static_cast<std::size_t>(node)]++ < p.gpus_per_node) gpus.push_back(g);
  }
  if (static_cast<std::int64_t>(gpus.size()) < p.world_size()) {
    workload_node.child("parallel")
        .child("gpus_per_node")
        .fail("places " + std::to_string(gpus.size()) + " of the plan's " + std::to_string(p.world_size()) +
              " ranks: system '" + system.name() + "' has " + std::to_string(system.num_nodes()) +
              (system.num_nodes() == 1 ? " node" : " nodes") + " and " + std::to_string(system.gpus().size()) +
              " GPUs; raise it or use more nodes");
  }
  p.gpus = std::move(gpus);
}

// The ranks (data * tensor * pipeline) must each have a GPU; fewer is fine
// (the job runs on the first ones, or on those parallel.gpus names).
int checked_world_size(const ConfigNode& workload_node, const WorkloadSpec& workload, const System& system) {
  const auto gpus = static_cast<std::int64_t>(system.gpus().size());
  const ParallelPlan& p = workload.parallel;
  if (p.world_size() > gpus) {
    const std::string context = p.context > 1 ? " * context" : "";
    const std::string context_size = p.context > 1 ? " * " + std::to_string(p.context) : "";
    const std::string what = p.tensor == 1 && p.pipeline == 1 && p.context == 1
                                 ? std::to_string(p.data) + " data-parallel ranks"
                                 : "data" + context + " * tensor * pipeline = " + std::to_string(p.data) +
                                       context_size + " * " + std::to_string(p.tensor) + " * " +
                                       std::to_string(p.pipeline) + " = " + std::to_string(p.world_size()) + " ranks";
    world_size_field(workload_node, p)
        .fail("asks for " + what + " but system '" + system.name() + "' has " + std::to_string(gpus) +
              " GPUs; use at most " + std::to_string(gpus));
  }
  for (std::size_t r = 0; r < p.gpus.size(); ++r) {
    if (p.gpus[r] >= gpus) {
      workload_node.child("parallel")
          .child("gpus")
          .elements()[r]
          .fail("GPU " + std::to_string(p.gpus[r]) + " does not exist; system '" + system.name() + "' has GPUs 0.." +
                std::to_string(gpus - 1));
    }
  }
  return static_cast<int>(p.world_size());
}

// The first rank whose GPU has no `needed` rate, if any.
struct RankWithoutFormat {
  std::uint32_t rank;
  std::uint32_t gpu;
  const GpuSpec* spec;
  std::string model;  // the part's model, as the system names it
  std::string where() const {
    return "rank " + std::to_string(rank) + " runs on GPU " + std::to_string(gpu) + ", a " + spec->name + " (" + model +
           ")";
  }
};

std::optional<RankWithoutFormat> rank_without(DType needed, const WorkloadSpec& w, const System& system,
                                              const DeviceCatalogue& catalogue, int ranks) {
  for (std::uint32_t r = 0; r < static_cast<std::uint32_t>(ranks); ++r) {
    const std::uint32_t gpu = w.parallel.gpus.empty() ? r : w.parallel.gpus[r];
    const std::string& model = system.part(system.gpus()[gpu]).model;
    const GpuSpec& spec = catalogue.gpu(model);
    if (!spec.supports(needed)) return RankWithoutFormat{r, gpu, &spec, model};
  }
  return std::nullopt;
}

// The compute dtype needs a rate on every GPU a rank runs on: bf16 (the
// default) on a V100, which has fp16 and fp32 only, is refused here, at the
// field, rather than when the first op is priced.
void check_precision_gpus(const ConfigNode& workload_node, const WorkloadSpec& w, const System& system,
                          const DeviceCatalogue& catalogue, int ranks) {
  const auto missing = rank_without(w.precision, w, system, catalogue, ranks);
  if (!missing) return;
  const std::string format(to_string(w.precision));
  const std::string what = format + " needs " + format + " compute, but " + missing->where() + ", which supports " +
                           missing->spec->peak_rate.listed() + "; set precision to one of those";
  if (const auto precision = workload_node.optional_child("precision")) precision->fail(what);
  workload_node.fail("precision (default bf16): " + what);
}

// FP8 (FP4) training needs FP8 (FP4) tensor cores on every GPU a rank runs on.
void check_fp8_gpus(const ConfigNode& workload_node, const WorkloadSpec& w, const System& system,
                    const DeviceCatalogue& catalogue, int ranks) {
  if (!w.fp8) return;
  const DType needed = w.fp8->gemm_dtype;
  const auto missing = rank_without(needed, w, system, catalogue, ranks);
  if (!missing) return;
  const std::string format(to_string(needed));
  std::string upper = format;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::vector<std::string> with_format;
  for (const std::string& id : catalogue.gpu_ids()) {
    if (catalogue.gpu(id).supports(needed)) with_format.push_back(id);
  }
  const std::string instead = needed == DType::fp4 && missing->spec->supports(DType::fp8) ? "fp8 or bf16" : "bf16";
  workload_node.child("precision")
      .fail(format + " needs " + upper + " tensor cores, but " + missing->where() + ", which has none; use " + instead +
            ", or GPUs with " + upper + ": " + join_choices(with_format));
}

Trace build_step_trace(const WorkloadSpec& w, int ranks) {
  const bool pure_data =
      w.parallel.tensor == 1 && w.parallel.pipeline == 1 && w.parallel.expert == 1 && w.parallel.context == 1;
  if (w.strategy == Strategy::data_parallel) return build_data_parallel_trace(w);
  // The parallel builder places offload copies; the flat DDP one does not.
  // The parallel builder also knows frozen weights and adapters (fine-tuning).
  if (w.strategy == Strategy::ddp && pure_data && w.parallel.gpus.empty() && !w.offload.any() && !w.finetune) {
    return build_ddp_trace(w, ranks);
  }
  return build_parallel_trace(w);
}

Trace build_trace(const WorkloadSpec& w, int ranks) {
  Trace trace = build_step_trace(w, ranks);
  trace.host_issue_seconds_per_op = w.host_issue_seconds_per_op();
  return trace;
}

// "8 x h100-sxm", or "16 x h100-sxm + 16 x a100-sxm4-80gb" for a mixed
// system: each GPU model with its count, in the order they first appear.
std::string describe_gpus(const System& system) {
  std::vector<std::pair<std::string, std::size_t>> counts;
  for (EndpointId gpu : system.gpus()) {
    const std::string& model = system.part(gpu).model;
    auto at = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == model; });
    if (at == counts.end()) {
      counts.emplace_back(model, 1);
    } else {
      ++at->second;
    }
  }
  if (counts.empty()) return "no GPUs";
  std::string out;
  for (const auto& [model, count] : counts) out += (out.empty() ? "" : " + ") + std::to_string(count) + " x " + model;
  return out;
}

// "8 GPUs", "1 GPU".
std::string gpu_count(std::size_t n) { return std::to_string(n) + (n == 1 ? " GPU" : " GPUs"); }

// " (modified: fabric.link=infiniband_hdr, fabric.rail_optimised=false)":
// a system's name is the user's words for the file as written ("NDR
// rail-optimised fat tree"), so a run that overrode fields inside it says
// which, wherever the name is shown (header, JSON, trace, charts).
std::string modified_note(const ConfigOverrides& overrides) {
  std::string fields;
  for (const ConfigOverride& o : overrides) {
    if (o.path.rfind("system.", 0) != 0) continue;
    fields += (fields.empty() ? "" : ", ") + o.path.substr(7) + "=" + o.value_yaml;
  }
  return fields.empty() ? "" : " (modified: " + fields + ")";
}

// A plan smaller than its system leaves GPUs idle, which a what-if on a
// larger system must not hide: "; the plan runs on 8 of them, 8 GPUs idle".
std::string describe_system(const System& system, std::size_t ranks, const ConfigOverrides& overrides) {
  const std::size_t gpus = system.gpus().size();
  const std::string idle =
      ranks < gpus ? "; the plan runs on " + std::to_string(ranks) + " of them, " + gpu_count(gpus - ranks) + " idle"
                   : "";
  return system.name() + modified_note(overrides) + ": " + describe_gpus(system) + " in " +
         std::to_string(system.num_nodes()) + (system.num_nodes() == 1 ? " node" : " nodes") + idle;
}

std::string strategy_name(Strategy s) {
  switch (s) {
    case Strategy::ddp: return "DDP";
    case Strategy::data_parallel: return "nn.DataParallel";
    case Strategy::zero1: return "ZeRO-1";
    case Strategy::zero2: return "ZeRO-2";
    case Strategy::zero3: return "ZeRO-3";
    case Strategy::fsdp: return "FSDP";
  }
  return "?";
}

std::string describe_plan(const WorkloadSpec& w, int ranks) {
  const ParallelPlan& p = w.parallel;
  const std::string experts = p.expert > 1 ? " with EP " + std::to_string(p.expert) : "";
  if (p.tensor == 1 && p.pipeline == 1 && p.context == 1) {
    return strategy_name(w.strategy) + " over " + gpu_count(static_cast<std::size_t>(ranks)) + experts;
  }
  const char* schedules[] = {"GPipe", "1F1B", "interleaved 1F1B"};
  const std::string context =
      p.context > 1 ? " x CP " + std::to_string(p.context) + " (" + std::string(config_word(p.context_algorithm)) + ")"
                    : "";
  std::string plan = "TP " + std::to_string(p.tensor) + (p.sequence ? "+SP" : "") + (p.async_tp ? " (AsyncTP)" : "") +
                     context + " x PP " + std::to_string(p.pipeline) + " (" + schedules[static_cast<int>(p.schedule)] +
                     (p.virtual_stages > 1 ? ", v=" + std::to_string(p.virtual_stages) : "") + ") x DP " +
                     std::to_string(p.data) + experts + " " + strategy_name(w.strategy) + " = " +
                     gpu_count(static_cast<std::size_t>(ranks));
  return plan;
}

// "8.03 B params", or the exact count for a model under a million.
std::string describe_parameters(std::int64_t count) {
  char text[32];
  if (count < 1'000'000) return std::to_string(count) + " params";
  if (count < 1'000'000'000) {  // a CNN: "25.56 M params", not "0.03 B"
    std::snprintf(text, sizeof text, "%.2f M params", static_cast<double>(count) / 1e6);
    return text;
  }
  std::snprintf(text, sizeof text, "%.2f B params", static_cast<double>(count) / 1e9);
  return text;
}

// "LoRA r16 on 4 linears", "QLoRA r64 ...", "first 4 blocks frozen".
std::string describe_finetune(const Finetune& f) {
  std::string text;
  if (f.adapters()) {
    int targets = 0;
    for (bool t : f.targets) targets += t ? 1 : 0;
    text = std::string(f.method == FinetuneMethod::qlora ? "QLoRA (nf4 base)" : "LoRA") + " r" +
           std::to_string(f.rank) + " on " + std::to_string(targets) + " linears per block";
  } else {
    text = "full fine-tuning";
  }
  if (f.frozen_layers > 0) text += ", embedding and first " + std::to_string(f.frozen_layers) + " blocks frozen";
  return text;
}

std::string describe_workload(const WorkloadSpec& w, int ranks) {
  std::string sample =
      w.mlp ? std::to_string(w.mlp->widths.front()) + " features" : std::to_string(w.model.seq_len) + " tokens";
  if (w.cnn) {
    const ImageShape& in = w.cnn->input;
    sample = std::to_string(in.channels) + "x" + std::to_string(in.height) + "x" + std::to_string(in.width) + " images";
  }
  std::string params = describe_parameters(parameter_count(w));
  if (!w.data_parallel_only_model() && w.model.moe())
    params += ", " + describe_parameters(w.model.active_parameter_count()) + " active";
  std::string precision = w.fp8 ? std::string(to_string(w.fp8->gemm_dtype)) + " (linear layers; bf16 elsewhere)"
                                : std::string(to_string(w.precision));
  if (w.finetune) precision += ", " + describe_finetune(*w.finetune);
  return w.model.name + " (" + params + "), " + describe_plan(w, ranks) + ", " + precision + ", micro-batch " +
         std::to_string(w.micro_batch) + ", global batch " + std::to_string(w.global_batch) + " x " + sample;
}

// The factors that priced the step's kernels, so a comparison across
// generations shows what each side was charged: the framework's factor, and
// each GPU model's sustained clock under its power limit.
// And the host's issue time per op, where an eager framework's host can bound
// the step (Trace::host_issue_seconds_per_op).
std::string describe_host_issue(const WorkloadSpec& w) {
  if (w.host_issue_per_kernel <= 0) return "";
  if (w.cuda_graphs) return "; CUDA graphs: no per-op host issue";
  char text[64];
  std::snprintf(text, sizeof text, "; host issues each op in %.1f us", ps_to_seconds(w.host_issue_per_kernel) * 1e6);
  return text;
}

std::string describe_pricing(const Scenario& s, int ranks) {
  char text[160];
  std::snprintf(text, sizeof text, "framework %s%s (kernel times x%.2f%s)", s.workload.framework.c_str(),
                s.workload.framework_by_default ? ", the default" : "", s.workload.kernel_time_factor,
                describe_host_issue(s.workload).c_str());
  std::string out = text;
  std::set<std::string> models;
  for (int r = 0; r < ranks; ++r) models.insert(s.system.part(s.system.gpus()[s.trace.gpu_index(r)]).model);
  for (const std::string& model : models) {
    const GpuSpec& gpu = s.catalogue.gpu(model);
    const double slowdown = gpu.compute.sustained_tensor_slowdown;
    if (slowdown == 1.0) {
      out += "; " + model + " tensor kernels at burst clock";
    } else {
      std::snprintf(text, sizeof text, "; %s tensor kernels x%.3f at its %.0f W power-capped clock", model.c_str(),
                    slowdown, gpu.tdp_watts);
      out += text;
    }
  }
  return out;
}

std::vector<std::vector<MemoryItem>> per_rank_memory(const Scenario& s, int ranks) {
  const RankGrid grid(s.workload.parallel);
  std::vector<std::vector<MemoryItem>> out;
  for (std::uint32_t r = 0; r < static_cast<std::uint32_t>(ranks); ++r) {
    const StageMemory& row = memory_of_rank(s.memory, s.workload, grid.coord(r).pipeline, r == 0);
    std::vector<MemoryItem> items;
    for (const auto& use : row.items) items.push_back({use.name, use.bytes});
    out.push_back(std::move(items));
  }
  return out;
}

}  // namespace

Catalogues Catalogues::load() {
  return Catalogues{DeviceCatalogue::load(), LinkKindTable::load(), CollectiveTuning::load(),
                    ModelCatalogue::load_file(ModelCatalogue::default_path())};
}

double rank_gpu_capacity_bytes(const Scenario& s, std::uint32_t rank) {
  const auto& part = s.system.part(s.system.gpus()[s.trace.gpu_index(rank)]);
  return static_cast<double>(s.catalogue.gpu(part.model).memory_capacity);
}

std::optional<std::uint32_t> first_out_of_memory_rank(const Scenario& s) {
  for (std::uint32_t r = 0; r < s.rank_memory.size(); ++r) {
    double used = 0.0;
    for (const auto& item : s.rank_memory[r]) used += item.bytes;
    if (used > rank_gpu_capacity_bytes(s, r)) return r;
  }
  return std::nullopt;
}

std::string describe_out_of_memory(const Scenario& s, std::uint32_t rank) {
  const RankGrid grid(s.workload.parallel);
  const StageMemory& row = memory_of_rank(s.memory, s.workload, grid.coord(rank).pipeline, rank == 0);
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%s (rank %u) needs %.1f GiB (", row.role.c_str(), rank,
                row.total_bytes() / kGiB);
  std::string text = buffer;
  for (std::size_t i = 0; i < row.items.size(); ++i) {
    std::snprintf(buffer, sizeof buffer, "%s%s %.1f", i ? ", " : "", row.items[i].name.c_str(),
                  row.items[i].bytes / kGiB);
    text += buffer;
  }
  std::snprintf(buffer, sizeof buffer, ") but its GPU has %.1f GiB", rank_gpu_capacity_bytes(s, rank) / kGiB);
  return text + buffer;
}

double rank_host_capacity_bytes(const Scenario& s, std::uint32_t rank) {
  const auto host_of = [&s](EndpointId gpu) { return s.system.nearest(gpu, PartKind::dram); };
  const auto host = host_of(s.system.gpus()[s.trace.gpu_index(rank)]);
  if (!host) return 0.0;
  const auto sharing = std::count_if(s.system.gpus().begin(), s.system.gpus().end(),
                                     [&](EndpointId gpu) { return host_of(gpu) == host; });
  return static_cast<double>(s.system.part(*host).capacity_bytes) / static_cast<double>(sharing);
}

double rank_host_bytes(const Scenario& s, std::uint32_t rank) {
  const RankGrid grid(s.workload.parallel);
  return memory_of_rank(s.memory, s.workload, grid.coord(rank).pipeline, rank == 0).host_bytes();
}

namespace {

// Offload moves state to host memory, which must hold it: the first rank
// whose share of its host's DRAM is too small is refused.
void check_host_memory(const Scenario& s, const ConfigNode& workload, int ranks) {
  if (!s.workload.offload.any()) return;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  for (std::uint32_t r = 0; r < static_cast<std::uint32_t>(ranks); ++r) {
    const double need = rank_host_bytes(s, r), capacity = rank_host_capacity_bytes(s, r);
    if (capacity <= 0.0 || need <= capacity) continue;
    char text[160];
    std::snprintf(text, sizeof text, "rank %u offloads %.1f GiB but its share of host memory is %.1f GiB", r,
                  need / kGiB, capacity / kGiB);
    workload.child("offload").fail(std::string("out of host memory: ") + text +
                                   "; give the system's dram a larger capacity, or offload less");
  }
}

// `simctl run` replays a static batch (prompt_tokens and output_tokens) or
// a request stream of a dense transformer.
void check_inference_run(const ConfigNode& workload, const WorkloadSpec& spec) {
  const InferenceSpec& inf = *spec.inference;
  if (!inf.requests && (inf.prompt_tokens == 0 || inf.output_tokens == 0)) {
    workload.fail(std::string("simctl run needs the workload's ") +
                  (inf.prompt_tokens == 0 ? "prompt_tokens" : "output_tokens") +
                  " (a static batch: prompt_tokens and output_tokens), or a `requests:` stream; `simctl memory` "
                  "needs neither");
  }
  if (spec.model.moe()) {
    workload.child("model").fail("simctl run serves dense transformers only; a mixture of experts (" +
                                 std::to_string(spec.model.experts) + " experts) is estimated by `simctl memory`");
  }
}

// `replay: {fold_tolerance: T}`: how far images' ends may stray from the
// representative's in a folded replay (Executor::set_fold_tolerance).
constexpr TimePs kMaxFoldTolerance = 1'000'000'000;  // 1 ms

TimePs parse_fold_tolerance(const ConfigNode& root) {
  const auto replay = root.optional_child("replay");
  if (!replay) return 0;
  expect_section(*replay, "replay");
  if (!replay->has("fold_tolerance")) return 0;
  const TimePs tolerance = replay->time("fold_tolerance");
  if (tolerance > kMaxFoldTolerance) {
    replay->child("fold_tolerance")
        .fail("must be from 0 s to 1 ms: a bound on each folded op's drift, a few hops of latency (2 us)");
  }
  return tolerance;
}

Scenario load_overridden(const std::string& config_path, const ScenarioOptions& options) {
  const ConfigNode root = ConfigNode::load_file(config_path);
  const ConfigOverrides file_overrides = apply_root_overrides(root, options.overrides);
  expect_section(root, "run");
  const Catalogues* shared = options.catalogues;
  Scenario s{shared ? shared->devices : DeviceCatalogue::load(),
             shared ? shared->link_kinds : LinkKindTable::load(),
             shared ? shared->tuning : CollectiveTuning::load(),
             System{},
             WorkloadSpec{},
             Trace{},
             RunLabels{},
             {},
             {},
             parse_costs(root),
             false,
             {},
             parse_fold_tolerance(root)};
  const ConfigNode system_node = section(root, "system", file_overrides);
  if (options.system && !reaches_system(options.overrides)) {
    s.system = *options.system;
  } else {
    s.system = load_system(system_node, s.catalogue, s.link_kinds);
    if (auto stragglers = root.optional_child("stragglers")) apply_stragglers(*stragglers, s.system);
  }
  for (const GpuSpec& variant : s.system.gpu_variants()) s.catalogue.add_gpu(variant);
  const ConfigNode workload_node = section(root, "workload", file_overrides);
  if (is_trace_workload(workload_node)) {  // replayed as written: no plan, so no memory estimate
    TraceWorkload replay = load_trace_workload(workload_node, s.system, s.catalogue);
    s.trace = std::move(replay.trace);
    s.labels = RunLabels{describe_system(s.system, s.trace.rank_count(), options.overrides), std::move(replay.label)};
    s.replays_trace_file = true;
    check_host_parts_reachable(s.system, s.trace, system_node);
    s.collectives = load_collective_overrides(root, s.system, s.trace);
    return s;
  }
  s.workload = shared ? parse_workload(workload_node, shared->models) : parse_workload(workload_node);
  if (s.workload.inference && !options.memory_only) check_inference_run(workload_node, s.workload);
  place_ranks_per_node(workload_node, s.workload, s.system);
  const int ranks = checked_world_size(workload_node, s.workload, s.system);
  check_precision_gpus(workload_node, s.workload, s.system, s.catalogue, ranks);
  if (!s.workload.inference) {
    choose_attention_kernel(workload_node, s.workload, s.system, s.catalogue, ranks);
    choose_kernel_time_factor(s.workload, s.system, s.catalogue, ranks);
  }
  check_fp8_gpus(workload_node, s.workload, s.system, s.catalogue, ranks);
  choose_fp8_transposes(s.workload, s.system, s.catalogue, ranks);
  if (s.workload.inference) {  // its steps' traces are built when it runs (inference_run.hpp)
    s.labels = RunLabels{describe_system(s.system, static_cast<std::size_t>(ranks), options.overrides),
                         describe_inference(s.workload, ranks)};
    s.memory = estimate_memory(s.workload);
    s.trace.gpu_of_rank = s.workload.parallel.gpus;
    s.rank_memory = per_rank_memory(s, ranks);
    if (auto rank = first_out_of_memory_rank(s); rank && !options.memory_only && !options.allow_out_of_memory) {
      workload_node.child("batch").fail(
          "out of memory: " + describe_out_of_memory(s, *rank) +
          "; lower batch or context, use kv_cache_dtype fp8, or more TP/PP (`simctl "
          "memory` shows the breakdown; `simctl run --ignore-memory` simulates it anyway)");
    }
    s.collectives = load_collective_overrides(root, s.system, s.trace);  // no trace: the section alone
    return s;
  }
  // Memory first (it needs only the plan and where each rank runs, which
  // the trace builders also take from parallel.gpus), so a plan that does
  // not fit can be refused, or kept without a trace, before the trace's cost.
  s.labels = RunLabels{describe_system(s.system, static_cast<std::size_t>(ranks), options.overrides),
                       describe_workload(s.workload, ranks)};
  s.memory = estimate_memory(s.workload);
  s.trace.gpu_of_rank = s.workload.parallel.gpus;
  s.labels.priced_by = describe_pricing(s, ranks);
  s.rank_memory = per_rank_memory(s, ranks);
  if (auto rank = first_out_of_memory_rank(s)) {
    if (!options.allow_out_of_memory) {
      workload_node.child("micro_batch")
          .fail("out of memory: " + describe_out_of_memory(s, *rank) +
                "; see `simctl memory` for the breakdown, and lower micro_batch, recompute activations or shard "
                "with ZeRO/FSDP or more TP/PP (`simctl run --ignore-memory` simulates it anyway)");
    }
    if (options.skip_trace_when_out_of_memory) return s;
  }
  if (!options.allow_out_of_memory) check_host_memory(s, workload_node, ranks);
  if (const std::string too_large = describe_trace_too_large(s.workload, ranks); !too_large.empty()) {
    workload_node.fail(too_large);
  }
  s.trace = build_trace(s.workload, ranks);
  check_host_parts_reachable(s.system, s.trace, system_node);
  if (auto stragglers = root.optional_child("stragglers"))
    check_stragglers_fit_clock(*stragglers, s.trace, s.system, s.catalogue);
  s.collectives = load_collective_overrides(root, s.system, s.trace);
  return s;
}

}  // namespace

Scenario load_scenario(const std::string& config_path, ScenarioOptions options) {
  try {
    return load_overridden(config_path, options);
  } catch (const ConfigError& error) {
    blame_override(error, options.overrides);
    throw;
  }
}

}  // namespace simctl
