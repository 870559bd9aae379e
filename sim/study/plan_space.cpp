#include "sim/study/plan_space.hpp"

#include <algorithm>

#include "workloads/layer_split.hpp"

namespace simctl {
namespace {

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

bool tensor_fits(const TransformerSpec& m, std::int64_t tp) {
  const bool heads = m.heads % tp == 0 && m.kv_heads % tp == 0 && m.ffn % tp == 0;
  return heads && (!m.moe() || m.expert_width() % tp == 0);
}

// Powers of two up to the per-replica batch, and the base's own micro-batch.
std::vector<std::int64_t> micro_batches(std::int64_t per_replica, std::int64_t base) {
  std::vector<std::int64_t> out;
  for (std::int64_t mb = 1; mb <= std::max<std::int64_t>(per_replica, 1); mb *= 2) out.push_back(mb);
  if (std::find(out.begin(), out.end(), base) == out.end() && base <= per_replica) out.push_back(base);
  std::sort(out.begin(), out.end());
  return out;
}

// Pipeline schedules for one split: 1F1B, and interleaved where Megatron
// allows it, with each number of chunks per stage that divides the layers;
// where pipeline does not divide them, two chunks per stage, the uneven
// split the published runs use.
std::vector<std::int64_t> virtual_stage_counts(std::int64_t layers, std::int64_t pp, std::int64_t grad_accum) {
  std::vector<std::int64_t> out{1};
  if (pp < 3 || grad_accum % pp != 0) return out;
  const bool even = layers % pp == 0;
  for (std::int64_t v = 2; pp * v <= layers && (even || v == 2); ++v) {
    if (!even || layers % (pp * v) == 0) out.push_back(v);
  }
  return out;
}

std::vector<Strategy> strategies(std::int64_t dp, std::int64_t ep) {
  if (dp == 1) return {Strategy::ddp};
  if (ep > 1) return {Strategy::ddp, Strategy::zero1, Strategy::zero2};
  return {Strategy::ddp, Strategy::zero1, Strategy::zero2, Strategy::zero3};
}

std::vector<std::int64_t> expert_degrees(const TransformerSpec& m, std::int64_t dp) {
  if (!m.moe()) return {1};
  std::vector<std::int64_t> out;
  for (std::int64_t ep : divisors(m.experts)) {
    if (dp % ep == 0) out.push_back(ep);
  }
  return out;
}

std::string yaml_bool(bool b) { return b ? "true" : "false"; }

std::string plan_split_text(const Plan& p) {
  if (p.stage_layers.empty()) return "";
  const auto [fewest, most] = std::minmax_element(p.stage_layers.begin(), p.stage_layers.end());
  return " split=" + std::to_string(*fewest) + ".." + std::to_string(*most);
}

std::string yaml_list(const std::vector<std::int64_t>& values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

}  // namespace

std::string virtual_stages_text(const Plan& p) {
  return p.schedule == PipelineSchedule::gpipe ? "gpipe" : std::to_string(p.virtual_stages);
}

Plan plan_of(const WorkloadSpec& w) {
  const ParallelPlan& p = w.parallel;
  return Plan{p.tensor,   p.pipeline,  p.data,     p.schedule, p.virtual_stages, w.micro_batch,
              p.sequence, w.recompute, w.strategy, p.expert,   p.stage_layers};
}

std::string plan_text(const Plan& p) {
  return "tp=" + std::to_string(p.tensor) + " pp=" + std::to_string(p.pipeline) + " dp=" + std::to_string(p.data) +
         " v=" + virtual_stages_text(p) + " mb=" + std::to_string(p.micro_batch) +
         " sp=" + (p.sequence ? "on" : "off") + " recompute=" + std::string(config_word(p.recompute)) +
         " strategy=" + std::string(config_word(p.strategy)) + " ep=" + std::to_string(p.expert) + plan_split_text(p);
}

ConfigOverrides plan_overrides(const Plan& p, const SourceLocation& origin) {
  const auto field = [&](const char* path, std::string value) {
    return ConfigOverride{path, std::move(value), origin};
  };
  return {
      field("workload.parallel.data", std::to_string(p.data)),
      field("workload.parallel.tensor", std::to_string(p.tensor)),
      field("workload.parallel.pipeline", std::to_string(p.pipeline)),
      field("workload.parallel.sequence", yaml_bool(p.sequence)),
      field("workload.parallel.schedule", std::string(config_word(p.schedule))),
      field("workload.parallel.virtual_stages", std::to_string(p.virtual_stages)),
      field("workload.parallel.expert", std::to_string(p.expert)),
      field("workload.micro_batch", std::to_string(p.micro_batch)),
      field("workload.activation_recompute", std::string(config_word(p.recompute))),
      field("workload.strategy", std::string(config_word(p.strategy))),
      // Always written, `[]` for the even split, so a base config's own
      // uneven split never outlives a plan with another pipeline.
      field("workload.parallel.stage_layers", yaml_list(p.stage_layers)),
  };
}

PlanSpace enumerate_plans(const WorkloadSpec& base, std::int64_t world, std::int64_t gpus_per_node) {
  PlanSpace space;
  space.max_tensor = gpus_per_node;
  const TransformerSpec& m = base.model;
  const std::int64_t global = base.global_batch;
  constexpr ActivationRecompute kRecomputes[] = {ActivationRecompute::none, ActivationRecompute::selective,
                                                 ActivationRecompute::full};
  for (std::int64_t tp : divisors(world)) {
    if (tp > gpus_per_node || !tensor_fits(m, tp)) continue;
    for (std::int64_t pp : divisors(world / tp)) {
      if (pp > m.layers) continue;
      const std::int64_t dp = world / (tp * pp);
      const std::int64_t per_replica = global / dp;
      for (std::int64_t mb : micro_batches(per_replica, base.micro_batch)) {
        const std::vector<bool> sequence_options = tp == 1   ? std::vector<bool>{false}
                                                   : m.moe() ? std::vector<bool>{true}
                                                             : std::vector<bool>{false, true};
        const std::vector<std::int64_t> eps = expert_degrees(m, dp);
        std::int64_t variants = 0;
        for (std::int64_t ep : eps) variants += static_cast<std::int64_t>(strategies(dp, ep).size());
        if (global % (mb * dp) != 0) {  // counted with every variant the split would have had
          space.skipped_batch += variants * static_cast<std::int64_t>(sequence_options.size()) * 3;
          continue;
        }
        const std::int64_t grad_accum = global / (mb * dp);
        for (std::int64_t v : virtual_stage_counts(m.layers, pp, grad_accum)) {
          const std::vector<std::int64_t> split = balanced_stage_layers(m.layers, pp * v);
          for (bool sp : sequence_options) {
            for (ActivationRecompute recompute : kRecomputes) {
              for (std::int64_t ep : eps) {
                for (Strategy strategy : strategies(dp, ep)) {
                  const PipelineSchedule schedule =
                      v > 1 ? PipelineSchedule::interleaved : PipelineSchedule::one_f_one_b;
                  space.plans.push_back(Plan{tp, pp, dp, schedule, v, mb, sp, recompute, strategy, ep, split});
                }
              }
            }
          }
        }
      }
    }
  }
  return space;
}

}  // namespace simctl
