#include "workloads/task_head_config.hpp"

#include <string>

namespace simctl {
namespace task_head_config_detail {

constexpr std::int64_t kMaxLabels = 65'536;

HeadKind parse_head_kind(const ConfigNode& node) {
  const std::string word =
      node.choice("head", {"causal_lm", "masked_lm", "sequence_classification", "question_answering"});
  if (word == "masked_lm") return HeadKind::masked_lm;
  if (word == "sequence_classification") return HeadKind::sequence_classification;
  return word == "question_answering" ? HeadKind::question_answering : HeadKind::causal_lm;
}

void refuse_field_without(const ConfigNode& workload, const char* key, bool applies, const std::string& needs) {
  if (!applies && workload.has(key)) workload.child(key).fail(std::string(key) + " applies to " + needs + " only");
}

// A decoder trains as a causal LM; an encoder through a task head.
void check_head_fits_mask(const ConfigNode& workload, const TransformerSpec& m) {
  const bool lm = m.head.kind == HeadKind::causal_lm;
  if (lm == m.causal) return;
  const ConfigNode& at = workload.has("head") ? workload.child("head") : workload.child("model");
  if (lm) {
    at.fail("model '" + m.name +
            "' attends both ways (attention_mask: bidirectional), so it cannot be trained as a causal LM; "
            "use head masked_lm, sequence_classification or question_answering");
  }
  at.fail("head " + std::string(workload.child("head").as_string()) + " needs an encoder (attention_mask: " +
          "bidirectional); model '" + m.name + "' is causal: use head causal_lm");
}

void check_plan(const ConfigNode& workload, const WorkloadSpec& spec) {
  const ParallelPlan& p = spec.parallel;
  if (spec.model.head.kind != HeadKind::causal_lm && p.tensor > 1) {
    workload.child("parallel")
        .child("tensor")
        .fail("tensor = " + std::to_string(p.tensor) +
              ": an encoder's task heads are modelled without tensor parallelism; use tensor: 1 (encoders of "
              "this size train data-parallel)");
  }
  if (!spec.model.causal && p.context > 1) {
    workload.child("parallel")
        .child("context")
        .fail("context = " + std::to_string(p.context) +
              ": context parallelism is modelled for causal attention (its chunks balance the causal mask); "
              "an encoder uses context: 1");
  }
}

}  // namespace task_head_config_detail

using namespace task_head_config_detail;

void set_task_head(const ConfigNode& workload, WorkloadSpec& spec) {
  if (spec.data_parallel_only_model()) {
    for (const char* key : {"head", "labels", "masked_fraction"}) {
      refuse_field_without(workload, key, false, "transformer models");
    }
    return;
  }
  TaskHead& head = spec.model.head;
  if (workload.has("head")) head.kind = parse_head_kind(workload);
  refuse_field_without(workload, "labels", head.kind == HeadKind::sequence_classification,
                       "head sequence_classification");
  refuse_field_without(workload, "masked_fraction", head.kind == HeadKind::masked_lm, "head masked_lm");
  if (workload.has("labels")) head.labels = workload.positive_integer("labels");
  if (head.labels > kMaxLabels) {
    workload.child("labels").fail("must be from 1 to " + std::to_string(kMaxLabels) + ", got " +
                                  std::to_string(head.labels));
  }
  head.predicted_fraction = workload.number_or("masked_fraction", 1.0);
  if (!(head.predicted_fraction > 0.0 && head.predicted_fraction <= 1.0)) {
    workload.child("masked_fraction").fail("must be in (0, 1]: the share of positions the MLM head predicts");
  }
  check_head_fits_mask(workload, spec.model);
  check_plan(workload, spec);
}

}  // namespace simctl
