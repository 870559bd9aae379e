#!/usr/bin/env python3
"""Measures how much slower a bf16 GEMM runs back to back for seconds than in
a short burst: the clock the GPU holds under its power cap.

Run on a machine with one CUDA GPU and PyTorch, with nvidia-smi logging clocks:
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu \
        --format=csv,noheader -lms 500 > OUT_DIR/clocks.csv &
    python3 measure_sustained.py OUT_DIR
For each shape (the 8192 square, a Nemotron-4 15B TP-4 MLP GEMM and a GPT-3
175B TP-4 one): 12 s idle, then the burst time as measure_gpu.py times a GEMM
(median of 20 CUDA-event-timed calls after 3 warm-ups), then 30 s of back-to-
back calls in windows of 40; the sustained time is the median over 20-30 s.
Writes OUT_DIR/h100_sustained_gemm.json (ratio = sustained / burst time).
"""
import json
import os
import statistics
import sys
import time

import torch

METHOD = ("bf16 a@b on random normal data: burst = median of 20 CUDA-event-timed calls after 3 warm-ups following "
          "12 s idle (as measure_gpu.py times GEMMs); then back-to-back for 30 s in windows of 40 calls; sustained = "
          "median over 20-30 s")
SHAPES = [(8192, 8192, 8192), (16384, 6144, 6144), (2048, 12288, 12288)]


def event():
    return torch.cuda.Event(enable_timing=True)


def burst_ms(a, b):
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        s, e = event(), event()
        s.record()
        a @ b
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def sustained_windows(a, b, seconds):
    out, t0 = [], time.time()
    while time.time() - t0 < seconds:
        s, e = event(), event()
        s.record()
        for _ in range(40):
            a @ b
        e.record()
        e.synchronize()
        out.append([round(time.time() - t0, 2), s.elapsed_time(e) / 40])
    return out


def main(out_dir):
    results = []
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        time.sleep(12)
        start = time.time()
        burst = burst_ms(a, b)
        windows = sustained_windows(a, b, 30)
        late = statistics.median([w[1] for w in windows if w[0] > 20])
        flops = 2 * m * n * k
        results.append(dict(m=m, n=n, k=k, start_s=round(start, 1), burst_median_ms=round(burst, 4),
                            burst_tflops=round(flops / burst / 1e9, 1), sustained_20_30s_ms=round(late, 4),
                            sustained_tflops=round(flops / late / 1e9, 1),
                            ratio_sustained_over_burst_time=round(late / burst, 4), windows=windows))
    with open(os.path.join(out_dir, "h100_sustained_gemm.json"), "w") as f:
        json.dump(dict(torch=torch.__version__, cuda=torch.version.cuda, gpu=torch.cuda.get_device_name(),
                       method=METHOD, results=results), f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
