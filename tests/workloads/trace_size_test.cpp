// The trace-size bound that refuses huge plans before their trace is built
// must stay a lower bound: on every kind of plan simctl generates (DDP,
// nn.DataParallel, ZeRO, TP x PP schedules, MoE, MLP, CNN, LSTM), the trace
// actually built holds at least as many ops, or a plan that would fit could
// be refused.
#include "workloads/trace_size.hpp"

#include <catch2/catch.hpp>

#include "sim/scenario/scenario.hpp"

using namespace simctl;

TEST_CASE("the trace-size bound never exceeds the ops actually built", "[workloads][limits]") {
  const char* configs[] = {
      "configs/dgx_h100_x8.yaml",                  // DDP, transformer
      "configs/dgx_h100_x8_data_parallel.yaml",    // nn.DataParallel
      "configs/dgx_h100_x8_llama3_8b_fsdp.yaml",   // ZeRO-3
      "configs/dgx_h100x4_pp4_1f1b.yaml",          // PP 1F1B
      "configs/dgx_h100x4_pp4_interleaved.yaml",   // interleaved
      "configs/dgx_a100x8_megatron_22b.yaml",      // TP 8 + SP, selective recompute
      "configs/dgx_h100x4_mixtral_8x7b_ep8.yaml",  // MoE, EP
      "configs/dgx_h100_x8_mlp_ddp.yaml",          // MLP
      "configs/h100_x1_resnet50.yaml",             // CNN
      "labs/09-rtx3090-cnn-vs-lstm/lstm.yaml",     // LSTM
  };
  for (const char* config : configs) {
    INFO(config);
    const Scenario s = load_scenario(config, ScenarioOptions{true, false, {}, false, nullptr});
    const double bound = trace_ops_lower_bound(s.workload, static_cast<std::int64_t>(s.trace.ranks.size()));
    CHECK(bound > 0.0);
    CHECK(static_cast<double>(s.trace.op_count()) >= bound);
  }
}
