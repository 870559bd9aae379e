#!/usr/bin/env python3
"""Measures skinny GEMMs: the decode step's products of a few rows by a weight.

Run on a machine with one CUDA GPU and PyTorch:
    python3 measure_skinny_gemm.py OUT_DIR
It writes OUT_DIR/<gpu>_skinny_gemm_<date>.json with one entry per shape:
  C[m,n] = A[m,k] W[k,n] through torch.matmul (bf16) and torch._scaled_mm
  (fp8 E4M3, per-tensor scales) for m = 1..1024 rows and the weight shapes of
  Llama 3 8B (TP 1) and Llama 3 70B (TP 8) layers and LM heads. Each entry
  gives the time, the TFLOP/s and the weight bytes streamed per second: at a
  few rows the product reads its weight once and is bound by HBM, so this is
  the bandwidth a decode step's GEMMs reach (task: inference's weight reads).
Weights are allocated once per shape and timed back to back (L2 is 50 MB, so
every weight here but the smallest streams from HBM). Median of timed
repetitions after warm-ups, CUDA events.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from measure_gpu import gpu_meta, time_ms, write_results  # noqa: E402

ROWS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
# name: (k, n) of the weight
WEIGHTS = {
    "llama3-8b qkv": (4096, 6144),
    "llama3-8b out": (4096, 4096),
    "llama3-8b up+gate": (4096, 28672),
    "llama3-8b down": (14336, 4096),
    "llama3-8b lm_head": (4096, 128256),
    "llama3-70b tp8 qkv": (8192, 1280),
    "llama3-70b tp8 out": (1024, 8192),
    "llama3-70b tp8 up+gate": (8192, 7168),
    "llama3-70b tp8 down": (3584, 8192),
}


def measure(dtype_name, results):
    fp8 = dtype_name == "fp8"
    for name, (k, n) in WEIGHTS.items():
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        if fp8:
            w = w.to(torch.float8_e4m3fn)
        scale = torch.tensor(1.0, device="cuda")
        for m in ROWS:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            if fp8:
                # _scaled_mm needs rows padded to 16; the pad is what serving pays.
                mp = max(16, (m + 15) // 16 * 16)
                a = torch.randn(mp, k, device="cuda", dtype=torch.bfloat16).to(torch.float8_e4m3fn)
                wt = w.t()
                fn = lambda: torch._scaled_mm(a, wt, scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16)  # noqa: E731
            else:
                wt = w.t()
                fn = lambda: torch.matmul(a, wt)  # noqa: E731
            ms = time_ms(fn, reps=30, warmup=5)
            weight_bytes = k * n * (1 if fp8 else 2)
            results.append({
                "kind": "skinny_gemm", "dtype": dtype_name, "weight": name, "m": m, "n": n, "k": k,
                "ms": round(ms, 5), "tflops": round(2 * m * n * k / ms / 1e9, 2),
                "weight_gb_per_s": round(weight_bytes / ms / 1e6, 1),
            })
        print(dtype_name, name, "done", flush=True)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    meta = gpu_meta("median of 30 timed repetitions after 5 warm-ups, CUDA events, random normal data")
    results = []
    for dtype_name in ("bf16", "fp8"):
        measure(dtype_name, results)
    write_results(out_dir, "skinny_gemm_", meta, results)


if __name__ == "__main__":
    main()
