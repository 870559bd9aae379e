#!/usr/bin/env python3
"""Times bf16 GEMMs of the MPT layers llm-foundry trains (hidden 1536-5120) at
the tokens of their micro-batches (4096-49152 rows), forward, data-gradient
and weight-gradient shapes, timed as measure_gpu.py times a GEMM (median of
20 CUDA-event-timed eager calls after 5 warm-ups). The Hopper GEMM fit of
kernel_points.yaml was taken at 2048 and 8192 rows only; these check it where
the MPT steps spend their time. A few shapes of that fit are timed again
first, so that this card's offset from the fitted one can be read.

    python3 measure_large_m_gemm.py OUT_DIR   (writes OUT_DIR/large_m_gemm.json)
"""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_gpu import time_ms  # noqa: E402

# (hidden, tokens per micro-batch) of the llm-foundry MPT reference configs
MODELS = [(1536, 24 * 2048), (1536, 12 * 2048), (2048, 14 * 2048), (2560, 5 * 4096), (4096, 6 * 2048),
          (5120, 2 * 2048)]
REFIT = [(8192, 8192, 8192), (8192, 6144, 2048), (8192, 8192, 2048), (2048, 7680, 2560), (8192, 2048, 8192)]


def layer_shapes(h, t):
    fwd = [(t, 3 * h, h), (t, h, h), (t, 4 * h, h), (t, h, 4 * h)]
    dgrad = [(m, k, n) for m, n, k in fwd]
    wgrad = [(k, n, m) for m, n, k in fwd]
    return fwd + dgrad + wgrad


def main(out_dir):
    shapes, seen = [("refit", s) for s in REFIT], set(REFIT)
    for h, t in MODELS:
        for s in layer_shapes(h, t):
            if s not in seen:
                seen.add(s)
                shapes.append((f"hidden {h}, {t} tokens", s))
    results = []
    time.sleep(5)
    for label, (m, n, k) in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        ms = time_ms(lambda: torch.matmul(a, b))
        results.append({"what": label, "shape": {"m": m, "n": n, "k": k}, "time_ms": round(ms, 5),
                        "tflops": round(2 * m * n * k / ms / 1e9, 1)})
        print(label, m, n, k, round(ms, 4), results[-1]["tflops"], flush=True)
        del a, b
    with open(os.path.join(out_dir, "large_m_gemm.json"), "w") as f:
        json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
                   "date": time.strftime("%Y-%m-%d"), "method": "median of 20 CUDA-event-timed eager torch.matmul "
                   "calls after 5 warm-ups (measure_gpu.time_ms), random normal bf16, in the order listed",
                   "results": results}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
