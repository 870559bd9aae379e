// The kernels FP8 training adds to a transformer pass (fp8_training.hpp).
#include "workloads/fp8_training.hpp"
#include "workloads/pass_geometry.hpp"

namespace simctl {
namespace {

// amax (a max-reduction) and scaling per element; memory-bound either way.
constexpr double kCastFlopsPerElement = 2.0;
// Rolling the amax history and computing the new scale: read and write it.
constexpr double kScaleUpdateTensorsTouched = 2.0;
// A weight held in fp8 transposed for its dgrad GEMM: read it, write W^T.
constexpr double kTransposeTensorsTouched = 2.0;

// Bytes a cast_transpose moves, counted in bf16 elements as streaming_work
// does: 4 bytes per element read 2, write 1 + 1, and under dynamic scaling
// the amax pass's read before it.
double cast_tensors(const Fp8Training& fp8, DType dtype) {
  const double amax = fp8.scaling == Fp8Scaling::dynamic ? kFp8AmaxReadBytesPerElement : 0.0;
  return (kFp8CastBytesPerElement + fp8_transpose_bytes(fp8) + amax) / bytes_per_element(dtype);
}

}  // namespace

DType linear_dtype(const PassShape& p) { return p.fp8 ? p.fp8->gemm_dtype : p.dtype; }

bool low_precision_operand(DType d) { return d == DType::fp8 || d == DType::fp4; }

// TE's userbuffers (and AsyncTP's fused scaled matmul) hold the gathered
// input in the GEMM's dtype, so with either overlap the fp8 casts precede
// the exchange and it moves fp8.
bool fp8_gathers(const PassGeometry& g) {
  return g.p.fp8 && (g.p.fp8->tp_all_gather || g.p.tp_comm_overlap || g.p.async_tp) && g.p.sequence &&
         g.tensor_parallel();
}

void append_fp8_input_cast(const PassGeometry& g, const std::string& name, OpPhase phase, double rows, std::int64_t k,
                           std::int64_t n, OpList& out) {
  if (!g.p.fp8) return;
  const double weight = static_cast<double>(k) * static_cast<double>(n) * g.p.fp8_weight_cast_share;
  const double elements = rows * static_cast<double>(k) + weight;
  out.compute(name, phase,
              streaming_work(ComputeKind::elementwise, g.p.dtype, elements, kCastFlopsPerElement,
                             cast_tensors(*g.p.fp8, g.p.dtype)));
}

void append_fp8_grad_cast(const PassGeometry& g, const std::string& name, double rows, std::int64_t n, OpList& out) {
  if (!g.p.fp8) return;
  out.compute(name, OpPhase::backward,
              streaming_work(ComputeKind::elementwise, g.p.dtype, rows * static_cast<double>(n), kCastFlopsPerElement,
                             cast_tensors(*g.p.fp8, g.p.dtype)));
}

void append_fp8_weight_transpose(const PassGeometry& g, const std::string& name, std::int64_t k, std::int64_t n,
                                 OpList& out) {
  if (!g.p.fp8 || !held_weight_transposed_per_dgrad(*g.p.fp8)) return;
  const double elements = static_cast<double>(k) * static_cast<double>(n);
  out.compute(name, OpPhase::backward,
              streaming_work(ComputeKind::elementwise, DType::fp8, elements, 0.0, kTransposeTensorsTouched));
}

// Only delayed scaling keeps a history to roll; dynamic scales come with the cast.
void append_fp8_scale_update(const PassGeometry& g, const std::string& name, OpPhase phase, OpList& out) {
  if (!g.p.fp8 || g.p.fp8->scaling != Fp8Scaling::delayed) return;
  const double entries = kFp8LinearsPerBlock * kFp8TensorsPerLinear * kFp8AmaxHistory;
  out.compute(name, phase, streaming_work(ComputeKind::other, DType::fp32, entries, 1.0, kScaleUpdateTensorsTouched));
}

}  // namespace simctl
