// Offload (workloads/offload.hpp): the config field, the copies and the CPU
// Adam step it puts in the trace, and what it moves out of GPU memory.
#include "workloads/offload.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "sim/config/config_error.hpp"
#include "workloads/ddp_trace.hpp"
#include "workloads/memory_estimate.hpp"
#include "workloads/parallel_trace.hpp"
#include "workloads/workload_config.hpp"

using namespace simctl;

namespace {

WorkloadSpec parse_offload(const std::string& text) {
  return parse_workload(ConfigNode::load_string(text, "w.yaml").child("workload"));
}

std::string workload(const std::string& offload, const std::string& model = "gpt-1.3b",
                     const std::string& strategy = "ddp") {
  return "workload:\n  model: " + model + "\n  strategy: " + strategy +
         "\n  micro_batch: 1\n  precision: bf16\n  offload: " + offload + "\n";
}

std::string error_of(const std::string& text) {
  try {
    parse_offload(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("expected a ConfigError for:\n" << text);
  return {};
}

const Op* find(const std::vector<Op>& ops, const std::string& name) {
  for (const Op& op : ops) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

int count_ending(const std::vector<Op>& ops, const std::string& suffix) {
  int n = 0;
  for (const Op& op : ops) {
    if (op.name.size() >= suffix.size() && op.name.compare(op.name.size() - suffix.size(), suffix.size(), suffix) == 0)
      ++n;
  }
  return n;
}

double item(const std::vector<MemoryUse>& items, const std::string& name) {
  for (const auto& i : items) {
    if (i.name == name) return i.bytes;
  }
  return 0.0;
}

}  // namespace

TEST_CASE("offload parses, defaults to none, and bad values name file, line and choices", "[workloads][offload]") {
  CHECK_FALSE(parse_offload(workload("{}")).offload.any());
  const auto spec = parse_offload(workload("{optimizer: cpu, activations: none}"));
  CHECK(spec.offload.optimizer);
  CHECK_FALSE(spec.offload.activations);
  CHECK(parse_offload(workload("{activations: cpu}")).offload.activations);

  const std::string bad = error_of(workload("{optimizer: gpu}"));
  CHECK_THAT(bad, Catch::Contains("w.yaml:6"));
  CHECK_THAT(bad, Catch::Contains("none") && Catch::Contains("cpu"));
  CHECK_THAT(error_of(workload("{optimiser: cpu}")), Catch::Contains("w.yaml:6") && Catch::Contains("optimizer"));
  CHECK_THAT(error_of(workload("{optimizer: cpu}", "gpt-1.3b", "zero3")),
             Catch::Contains("w.yaml:6") && Catch::Contains("zero1 or zero2"));
  CHECK_THAT(error_of(workload("{activations: cpu}", "mlp-33-512-10")),
             Catch::Contains("w.yaml:6") && Catch::Contains("transformer"));
}

TEST_CASE("optimizer offload runs Adam on the host between gradient and weight copies", "[workloads][offload]") {
  const WorkloadSpec spec = parse_offload(workload("{optimizer: cpu}"));
  const Trace trace = build_parallel_trace(spec);
  const std::vector<Op>& ops = trace.programs.at(0);
  CHECK(find(ops, "optimizer.adam") == nullptr);  // no GPU step
  const Op* adam = find(ops, "optimizer.cpu_adam");
  REQUIRE(adam != nullptr);
  const auto& host = std::get<HostWork>(adam->work);
  const double params = static_cast<double>(spec.model.parameter_count());
  CHECK(host.memory_bytes == Approx(28.0 * params));  // fp32 w, m, v read+written, bf16 grad read, bf16 w written
  CHECK(adam->stream == Stream::loader);

  // One gradient copy per unit (embedding, 24 blocks, head), bf16, all of them.
  CHECK(count_ending(ops, ".grads.offload") == 26);
  double copied = 0.0;
  for (const Op& op : ops) {
    if (op.name.find(".grads.offload") == std::string::npos) continue;
    const auto& c = std::get<CopyCall>(op.work);
    CHECK(c.direction == CopyDirection::device_to_host);
    copied += c.bytes;
  }
  CHECK(copied == Approx(2.0 * params));
  CHECK(adam->deps.size() >= 26);
  const Op* upload = find(ops, "optimizer.weights.upload");
  REQUIRE(upload != nullptr);
  CHECK(std::get<CopyCall>(upload->work).direction == CopyDirection::host_to_device);
  CHECK(std::get<CopyCall>(upload->work).bytes == Approx(2.0 * params));
}

TEST_CASE("activation offload copies each block out after forward and back before backward", "[workloads][offload]") {
  const WorkloadSpec spec = parse_offload(workload("{activations: cpu}"));
  const Trace trace = build_parallel_trace(spec);
  const std::vector<Op>& ops = trace.programs.at(0);
  CHECK(count_ending(ops, ".activations.offload") == 24);
  CHECK(count_ending(ops, ".activations.reload") == 24);
  const Op* out = find(ops, "mb0.layer5.activations.offload");
  const Op* back = find(ops, "mb0.layer5.activations.reload");
  REQUIRE(out != nullptr);
  REQUIRE(back != nullptr);
  CHECK(std::get<CopyCall>(out->work).bytes == Approx(layer_activation_bytes(spec)));
  CHECK(out->stream == Stream::copy);
  // The reload waits for its own copy-out.
  const auto out_index = static_cast<OpIndex>(out - ops.data());
  CHECK(std::find(back->deps.begin(), back->deps.end(), out_index) != back->deps.end());
  CHECK(find(ops, "optimizer.adam") != nullptr);  // the optimizer stays on the GPU
}

TEST_CASE("offload moves optimizer states and activations to host memory", "[workloads][offload]") {
  const WorkloadSpec plain = parse_offload(workload("{}", "llama3-8b"));
  const WorkloadSpec both = parse_offload(workload("{optimizer: cpu, activations: cpu}", "llama3-8b"));
  const StageMemory gpu = estimate_memory(plain).at(0);
  const StageMemory off = estimate_memory(both).at(0);
  CHECK(gpu.host_items.empty());
  CHECK(item(off.items, "optimizer_states") == 0.0);
  CHECK(item(off.host_items, "optimizer_states") == Approx(item(gpu.items, "optimizer_states")));
  CHECK(item(off.host_items, "gradients") == Approx(item(gpu.items, "gradients")));
  CHECK(item(off.items, "gradients") < 0.2 * item(gpu.items, "gradients"));  // two units' buffers
  CHECK(item(off.items, "activations") == Approx(2.0 * layer_activation_bytes(both)));
  CHECK(item(off.items, "activations") + item(off.host_items, "activations") == Approx(item(gpu.items, "activations")));
  CHECK(item(off.items, "weights") == item(gpu.items, "weights"));
  // Everything is somewhere; the gradients are on both sides (GPU buffers, host copy).
  CHECK(off.total_bytes() + off.host_bytes() == Approx(gpu.total_bytes() + item(off.items, "gradients")));
}
