#!/usr/bin/env python3
"""Why do the single-GPU training steps' GEMMs and attention run 16-28 %
faster inside a step (measure_step_profile.py) than the same shapes timed
alone (measure_gpu.py, measure_large_m_gemm.py), which the Hopper kernel fit
is fitted to? Issue #16; run on an H100 on 2026-11-26
(../h100_sxm_layout_gap_2026-11-26.json).

Two candidate causes, separated here, on the layers of the two profiled
steps (MPT-760M at 12 x 2048 tokens, the Llama 3 8B-shaped layer at 8192):

- the layout: a step runs x @ W.T (F.linear), dy @ W and dy.T @ x, the fit
  timed a @ b with both operands row-major; each GEMM is timed in both
  layouts, same m, n, k;
- the timing: the fit times one eager call between two CUDA events (the
  host's dispatch between calls leaves the GPU idle), a step runs kernels
  back to back; each GEMM and attention pass is timed both ways, per call
  (measure_gpu.time_ms) and as the profiler's kernel time over 20 calls
  launched back to back (torch.profiler, CUPTI), which is how the step
  profile measured.

    python3 measure_layout_gap.py OUT_DIR      (writes OUT_DIR/layout_gap.json)

Runs in about a minute on an H100. Run nvidia-smi beside it to log clocks:
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 200 > OUT_DIR/clocks.csv &
"""
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_gpu import attention_backends, time_ms  # noqa: E402
from measure_step_profile import kernel_class, kernel_events  # noqa: E402
from measure_train_memory import MODELS  # noqa: E402

STEPS = [("mpt-760m", 12 * 2048, 12), ("llama3-8b", 8192, 1)]  # model, tokens per micro-batch, sequences
BACK_TO_BACK = 20


def linears(c):
    """(name, out_features, in_features) of one layer, as measure_train_memory.Block builds it."""
    d, hd = c["hidden"], c["hidden"] // c["heads"]
    return [("qkv", (c["heads"] + 2 * c["kv_heads"]) * hd, d), ("out", d, d),
            ("up", c["ffn"] * (2 if c["swiglu"] else 1), d), ("down", d, c["ffn"])]


def profiled_ms(fn, classes):
    """Median per call of the kernels of `classes` when fn runs BACK_TO_BACK times unsynchronised."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(BACK_TO_BACK):
            fn()
        torch.cuda.synchronize()
    # Kernel events only: an operator's own event would count its kernels again.
    us = sum(e.time_range.elapsed_us() for e in kernel_events(prof) if kernel_class(e.name) in classes)
    return us / BACK_TO_BACK / 1e3


def both_timings(fn, classes):
    return {"per_call_ms": round(time_ms(fn), 5), "back_to_back_kernel_ms": round(profiled_ms(fn, classes), 5)}


def gemm_cases(tokens, out_f, in_f):
    """The three GEMMs of one linear in its training layout, each beside a @ b of the same m, n, k."""
    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    x, w, dy = torch.randn(tokens, in_f, **bf16), torch.randn(out_f, in_f, **bf16), torch.randn(tokens, out_f, **bf16)
    cases = {
        "forward x @ W.T": ((tokens, out_f, in_f), lambda: F.linear(x, w)),
        "data gradient dy @ W": ((tokens, in_f, out_f), lambda: dy @ w),
        "weight gradient dy.T @ x": ((out_f, in_f, tokens), lambda: dy.t() @ x),
    }
    rows = []
    for what, ((m, n, k), training) in cases.items():
        a, b = torch.randn(m, k, **bf16), torch.randn(k, n, **bf16)
        flops = 2 * m * n * k
        row = {"what": what, "m": m, "n": n, "k": k,
               "training_layout": both_timings(training, {"gemm"}),
               "fit_layout_a_at_b": both_timings(lambda: a @ b, {"gemm"})}
        for layout in ("training_layout", "fit_layout_a_at_b"):
            for key, ms in list(row[layout].items()):
                row[layout][key.replace("_ms", "_tflops")] = round(flops / ms / 1e9, 1)
        rows.append(row)
        del a, b
    return rows


def attention_case(c, sequences, tokens, backend):
    """Causal SDPA with every head's own K and V (a GQA model's K and V expanded), as FLOPs count it."""
    from torch.nn.attention import sdpa_kernel

    hd, seq = c["hidden"] // c["heads"], tokens // sequences
    q, k, v = (torch.randn(sequences, c["heads"], seq, hd, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    fwd_flops = 4 * sequences * c["heads"] * seq * seq * hd / 2  # causal
    with sdpa_kernel([attention_backends()[backend]]):
        fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)
        grad = torch.randn_like(fwd())

        def fwd_bwd():
            # No in-place gradient adds into the leaves (measure_back_to_back.attention_calls).
            q.grad = k.grad = v.grad = None
            F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(grad)

        row = {"backend": backend, "batch": sequences, "heads": c["heads"], "seq_len": seq, "head_dim": hd,
               "causal": True, "forward": both_timings(fwd, {"attention"}),
               "forward_backward": both_timings(fwd_bwd, {"attention"}),
               "forward_backward_all_kernels": both_timings(fwd_bwd, {"attention", "gemm", "other"})}
    row["forward"]["per_call_tflops"] = round(fwd_flops / row["forward"]["per_call_ms"] / 1e9, 1)
    row["forward"]["back_to_back_tflops"] = round(fwd_flops / row["forward"]["back_to_back_kernel_ms"] / 1e9, 1)
    return row


def main(out_dir):
    results = []
    time.sleep(3)
    for name, tokens, sequences in STEPS:
        c = MODELS[name]
        for layer, out_f, in_f in linears(c):
            for row in gemm_cases(tokens, out_f, in_f):
                results.append({"model": name, "kind": "gemm", "linear": layer, **row})
                print(name, layer, row["what"], row["training_layout"], row["fit_layout_a_at_b"], flush=True)
        for backend in ("cudnn", "flash"):
            try:
                row = attention_case(c, sequences, tokens, backend)
            except Exception as err:  # noqa: BLE001
                row = {"backend": backend, "error": str(err).splitlines()[0][:200]}
            results.append({"model": name, "kind": "attention", **row})
            print(name, "attention", row, flush=True)
        torch.cuda.empty_cache()
    summary = {}
    for layout in ("training_layout", "fit_layout_a_at_b"):
        for key in ("per_call_ms", "back_to_back_kernel_ms"):
            ratios = [r[layout][key] / r["fit_layout_a_at_b"]["per_call_ms"] for r in results if r["kind"] == "gemm"]
            summary[f"gemm {layout} {key} / fit layout per call (median)"] = round(statistics.median(ratios), 4)
    with open(os.path.join(out_dir, "layout_gap.json"), "w") as f:
        json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
                   "date": time.strftime("%Y-%m-%d"), "back_to_back_calls": BACK_TO_BACK,
                   "method": "per_call: measure_gpu.time_ms (median of 20 CUDA-event-timed eager calls after 5 "
                   "warm-ups); back_to_back: torch.profiler kernel time of the named classes over calls launched "
                   "without synchronising, per call", "summary": summary, "results": results}, f, indent=1)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
