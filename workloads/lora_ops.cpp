// The kernels fine-tuning changes in a transformer pass (finetune.hpp).
#include "workloads/finetune.hpp"
#include "workloads/pass_geometry.hpp"

namespace simctl {
namespace {

// Dequantising reads the nf4 codes and scales, looks each code up and
// writes bf16 (bitsandbytes' dequantize_4bit).
constexpr double kDequantFlopsPerElement = 2.0;

double dims(std::int64_t a, std::int64_t b) { return static_cast<double>(a) * static_cast<double>(b); }

// A GEMM that accumulates into its output (beta = 1) also reads it.
ComputeWork accumulating_gemm(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype) {
  ComputeWork w = gemm_work(m, n, k, dtype, bytes_per_element(dtype));
  w.memory_bytes += dims(m, n) * bytes_per_element(dtype);
  return w;
}

}  // namespace

bool block_weights_train(const PassShape& p, std::int64_t layer) {
  return !p.finetune || p.finetune->block_trains(layer);
}
bool embedding_trains(const PassShape& p) { return !p.finetune || p.finetune->embedding_trains(); }
bool head_trains(const PassShape& p) { return !p.finetune || p.finetune->head_trains(); }
bool block_runs_backward(const PassShape& p, std::int64_t layer) {
  return !p.finetune || p.finetune->runs_backward(layer);
}

bool adapted(const PassShape& p, std::int64_t layer, std::optional<LoraTarget> target) {
  return target && p.finetune && p.finetune->targets_linear(*target) && p.finetune->runs_backward(layer);
}

void append_dequant(const PassGeometry& g, const std::string& name, OpPhase phase, std::int64_t k, std::int64_t n,
                    OpList& out) {
  if (!g.p.finetune || g.p.finetune->method != FinetuneMethod::qlora) return;
  ComputeWork w = streaming_work(ComputeKind::elementwise, g.p.dtype, dims(k, n), kDequantFlopsPerElement, 1.0);
  w.memory_bytes += dims(k, n) * kNf4BytesPerParameter;  // the codes and scales read
  out.compute(name, phase, w);
}

void append_adapter_forward(const PassGeometry& g, const std::string& name, OpPhase phase, std::int64_t k,
                            std::int64_t n, OpList& out) {
  const std::int64_t r = g.p.finetune->rank, t = g.token_rows();
  const DType d = g.p.dtype;
  out.compute(name + ".lora_a", phase, gemm_work(t, r, k, d, bytes_per_element(d)));
  out.compute(name + ".lora_b", phase, accumulating_gemm(t, n, r, d));
}

void append_adapter_backward(const PassGeometry& g, const std::string& name, std::int64_t k, std::int64_t n,
                             OpList& out) {
  const std::int64_t r = g.p.finetune->rank, t = g.token_rows();
  const DType d = g.p.dtype;
  const OpPhase bw = OpPhase::backward;
  const int grad_bytes = bytes_per_element(g.p.grad_dtype);
  out.compute(name + ".lora_b.wgrad", bw, gemm_work(r, n, t, d, grad_bytes));            // dB = (xA)^T dy
  out.compute(name + ".lora_b.dgrad", bw, gemm_work(t, r, n, d, bytes_per_element(d)));  // d(xA) = dy B^T
  out.compute(name + ".lora_a.wgrad", bw, gemm_work(k, r, t, d, grad_bytes));            // dA = x^T d(xA)
  out.compute(name + ".lora_a.dgrad", bw, accumulating_gemm(t, k, r, d));                // dx += d(xA) A^T
}

}  // namespace simctl
