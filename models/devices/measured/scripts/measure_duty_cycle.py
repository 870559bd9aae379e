#!/usr/bin/env python3
"""Measures how the power-capped clock slows a bf16 GEMM as a function of the
share of time the GPU spends in tensor-core work (its duty cycle): a training
step interleaves GEMMs with memory-bound kernels, which draw less power.

Run on a machine with one CUDA GPU and PyTorch, with nvidia-smi logging clocks:
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu \
        --format=csv,noheader -lms 500 > OUT_DIR/clocks.csv &
    python3 measure_duty_cycle.py OUT_DIR [SECONDS_PER_DUTY]
For each shape (the 8192 cube, and MPT-760M's MLP up-projection at 12 x 2048
tokens): 8 s idle, then the burst time as measure_gpu.py times a GEMM (median
of 20 CUDA-event-timed calls after 3 warm-ups); then for each duty cycle d,
SECONDS (default 12) of rounds, each round 8 GEMMs (timed together) followed
by copies of a 1 GiB bf16 buffer (a memory-bound kernel at HBM bandwidth)
lasting (1-d)/d of the GEMMs' burst time. The sustained GEMM time is the
median over the second half. Writes OUT_DIR/duty_cycle.json
(ratio = sustained GEMM time / burst time).
"""
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_gpu import time_ms  # noqa: E402

SHAPES = [(8192, 8192, 8192), (24576, 6144, 1536)]
DUTIES = [1.0, 0.85, 0.7, 0.5]
GEMMS_PER_ROUND = 8
METHOD = ("bf16 a@b on random normal data; burst = median of 20 CUDA-event-timed calls after 3 warm-ups following 8 s "
          "idle; then per duty cycle d, rounds of 8 GEMMs (timed together) and copies of a 1 GiB bf16 buffer lasting "
          "(1-d)/d of the GEMMs' burst time, back to back; sustained = median GEMM time over the second half")


def event():
    return torch.cuda.Event(enable_timing=True)


def rounds(a, b, dst, src, copies, seconds):
    out, t0 = [], time.time()
    while time.time() - t0 < seconds:
        s, m, e = event(), event(), event()
        s.record()
        for _ in range(GEMMS_PER_ROUND):
            a @ b
        m.record()
        for _ in range(copies):
            dst.copy_(src)
        e.record()
        e.synchronize()
        out.append([round(time.time() - t0, 2), s.elapsed_time(m) / GEMMS_PER_ROUND, m.elapsed_time(e)])
    return out


def main(out_dir, seconds):
    dst = torch.empty(2**29, device="cuda", dtype=torch.bfloat16)  # 1 GiB
    src = torch.randn(2**29, device="cuda", dtype=torch.bfloat16)
    result = dict(torch=torch.__version__, cuda=torch.version.cuda, gpu=torch.cuda.get_device_name(),
                  method=METHOD, shapes=[])
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        time.sleep(8)
        burst = time_ms(lambda: a @ b, reps=20, warmup=3)
        copy_ms = time_ms(lambda: dst.copy_(src), reps=5, warmup=3)
        entry = dict(m=m, n=n, k=k, burst_median_ms=round(burst, 4), copy_1gib_ms=round(copy_ms, 4), duties=[])
        result["shapes"].append(entry)
        for d in DUTIES:
            copies = round(GEMMS_PER_ROUND * burst * (1 - d) / d / copy_ms)
            w = rounds(a, b, dst, src, copies, seconds)
            late = [r for r in w if r[0] >= seconds / 2]
            gemm = statistics.median(r[1] for r in late)
            fill = statistics.median(r[2] for r in late)
            entry["duties"].append(dict(duty_target=d, copies_per_round=copies,
                                        duty_measured=round(gemm * GEMMS_PER_ROUND / (gemm * GEMMS_PER_ROUND + fill), 3),
                                        gemm_sustained_ms=round(gemm, 4), copies_ms=round(fill, 3),
                                        ratio_sustained_over_burst_time=round(gemm / burst, 4), rounds=w))
            with open(os.path.join(out_dir, "duty_cycle.json"), "w") as f:
                json.dump(result, f, indent=1)
            print(m, n, k, d, copies, round(gemm / burst, 4), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 12.0)
