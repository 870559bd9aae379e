#!/usr/bin/env python3
"""Measures the GPU's sustained HBM bandwidth (STREAM-like kernels) and how
fast memory-bound GEMMs stream their weights when launch costs are out of
the way (CUDA graphs): what a decode step's GEMMs run at.

Run on a machine with one CUDA GPU and PyTorch:
    python3 measure_stream_gemv.py OUT_DIR
Writes OUT_DIR/stream_gemv.json:
- stream: copy (a = b), scale (a = s*b), add (a = b + c), triad (a = b + s*c)
  and read (sum of a) over 2 GiB bf16 arrays: median of 20 timed calls after
  3 warm-ups, CUDA events; bytes counted as STREAM counts them (read +
  written).
- gemv: X[m, k] @ W[k, n] for the weights of Llama 3 8B (TP 1) and 70B
  (TP 8) layers and LM heads, m = 1 ... 256, bf16 and fp8 (torch._scaled_mm,
  rows padded to 16): 20 calls captured in one CUDA graph, the graph replayed
  10 times, median per call. Weight bytes per second = k*n*bytes / time.
"""
import json
import os
import statistics
import sys
import time

import torch

GIB = 1024**3
WEIGHTS = {  # name: (n, k)
    "llama3-8b qkv": (6144, 4096),
    "llama3-8b out": (4096, 4096),
    "llama3-8b up+gate": (28672, 4096),
    "llama3-8b down": (4096, 14336),
    "llama3-8b lm_head": (128256, 4096),
    "llama3-70b tp8 qkv": (1280, 8192),
    "llama3-70b tp8 up+gate": (7168, 8192),
    "llama3-70b tp8 down": (8192, 3584),
}
ROWS = (1, 4, 16, 64, 256)


def timed(fn, reps=20, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e) / 1e3)
    return statistics.median(out)


def stream(result):
    n = 2 * GIB // 2
    a, b, c = (torch.empty(n, dtype=torch.bfloat16, device="cuda").normal_() for _ in range(3))
    elem = 2
    kernels = {
        "copy": (lambda: a.copy_(b), 2),
        "scale": (lambda: torch.mul(b, 1.5, out=a), 2),
        "add": (lambda: torch.add(b, c, out=a), 3),
        "triad": (lambda: torch.add(b, c, alpha=1.5, out=a), 3),
        "read": (lambda: a.sum(dtype=torch.float32), 1),
    }
    for name, (fn, arrays) in kernels.items():
        t = timed(fn)
        result["stream"].append({"kernel": name, "bytes": arrays * n * elem, "s": t,
                                 "tb_per_s": round(arrays * n * elem / t / 1e12, 4)})
    del a, b, c
    torch.cuda.empty_cache()


def graph_time(fn, calls=20, replays=10):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    g.replay()
    torch.cuda.synchronize()
    out = []
    for _ in range(replays):
        st, en = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        st.record()
        g.replay()
        en.record()
        en.synchronize()
        out.append(st.elapsed_time(en) / 1e3 / calls)
    return statistics.median(out)


def gemv(result):
    for dtype in ("bf16", "fp8"):
        for name, (n, k) in WEIGHTS.items():
            w = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
            if dtype == "fp8":
                w8 = w.to(torch.float8_e4m3fn).t().contiguous().t()  # column-major, as _scaled_mm wants
                one = torch.ones((), device="cuda")
            for m in ROWS:
                try:
                    if dtype == "bf16":
                        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                        fn = lambda: torch.matmul(x, w)
                    else:
                        x = torch.randn(max(m, 16), k, device="cuda").to(torch.float8_e4m3fn)
                        fn = lambda: torch._scaled_mm(x, w8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
                    t = graph_time(fn)
                    wbytes = k * n * (2 if dtype == "bf16" else 1)
                    result["gemv"].append({"dtype": dtype, "weight": name, "m": m, "n": n, "k": k, "s": t,
                                           "weight_tb_per_s": round(wbytes / t / 1e12, 4),
                                           "tflops": round(2 * m * n * k / t / 1e12, 2)})
                except Exception as e:  # one failed shape must not lose the rest
                    result["errors"].append(f"{dtype} {name} m{m}: {type(e).__name__}: {e}"[:300])
            del w
            torch.cuda.empty_cache()


def main():
    out_dir = sys.argv[1]
    props = torch.cuda.get_device_properties(0)
    result = {"meta": {"gpu": props.name, "multiprocessors": props.multi_processor_count,
                       "memory_gib": round(props.total_memory / GIB, 1), "date": time.strftime("%Y-%m-%d"),
                       "torch": torch.__version__, "cuda": torch.version.cuda,
                       "method": "stream: median of 20 CUDA-event-timed calls after 3 warm-ups over 2 GiB bf16 "
                                 "arrays; gemv: 20 calls in one CUDA graph, median of 10 replays, per call; random "
                                 "normal data"},
              "stream": [], "gemv": [], "errors": []}
    stream(result)
    gemv(result)
    with open(os.path.join(out_dir, "stream_gemv.json"), "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
