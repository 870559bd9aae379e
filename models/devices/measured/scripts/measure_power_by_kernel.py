#!/usr/bin/env python3
"""The power each kernel class of a training step draws, and the clock the
H100 settles at when it runs that class alone back to back (issue #16: a
step's clock under the 700 W cap depends on its kernel mix; the MPT-760M
step keeps ~1920 MHz, the Llama 3 8B-shaped one falls to ~1590, and one
sustained factor cannot price both).

For each class: RUN_S of calls back to back after COOL_S idle, the SM clock
and board power read by NVML every 50 ms, and the per-call time of each
~50 ms chunk of calls (CUDA events). Reports the first chunk's time (burst),
the median over the last second (settled), and the median power and clock
over the last second.

    python3 measure_power_by_kernel.py OUT_DIR      (writes OUT_DIR/power_by_kernel.json)
"""
import json
import os
import statistics
import sys
import threading
import time

import pynvml
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_back_to_back import attention_calls, gemm_call  # noqa: E402
from measure_gpu import attention_backends  # noqa: E402

RUN_S, COOL_S, SAMPLE_S = 3.0, 1.5, 0.05
pynvml.nvmlInit()
HANDLE = pynvml.nvmlDeviceGetHandleByIndex(0)


def bf16(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


def attention(shape):
    from torch.nn.attention import sdpa_kernel

    _, _, fwd_bwd = attention_calls("cudnn", *shape, True)

    def call():  # sdpa_kernel's context is single-use: a fresh one per call
        with sdpa_kernel([attention_backends()["cudnn"]]):
            fwd_bwd()
    return call


def adamw_foreach():
    params = [torch.nn.Parameter(torch.randn(4096, 4096, device="cuda")) for _ in range(24)]  # 0.4 B fp32
    for p in params:
        p.grad = torch.randn_like(p)
    opt = torch.optim.AdamW(params, lr=1e-4, foreach=True)
    return opt.step


def classes():
    x_mpt, x_big, logits = bf16(24576, 6144), bf16(1 << 29), bf16(8192, 32768)
    norm_in, labels = bf16(24576, 1536), torch.randint(0, 32768, (8192,), device="cuda")
    out = torch.empty_like(x_big)
    return {
        "gemm mpt-760m up 24576x6144x1536": lambda: gemm_call("bf16", 24576, 6144, 1536),
        "gemm llama3-8b up 8192x28672x4096": lambda: gemm_call("bf16", 8192, 28672, 4096),
        "gemm cube 8192": lambda: gemm_call("bf16", 8192, 8192, 8192),
        "attention cudnn fwd+bwd mpt-760m (12x12 heads, 2048, hd 128, causal)": lambda: attention((12, 12, 2048, 128)),
        "attention cudnn fwd+bwd llama3-8b (1x32 heads, 8192, hd 128, causal)": lambda: attention((1, 32, 8192, 128)),
        "gelu 24576x6144 bf16": lambda: (lambda: F.gelu(x_mpt)),
        "layer_norm 24576x1536 bf16": lambda: (lambda: F.layer_norm(norm_in, (1536,))),
        "copy 1 GiB bf16": lambda: (lambda: out.copy_(x_big)),
        "cross_entropy fp32 8192x32768": lambda: (lambda: F.cross_entropy(logits.float(), labels)),
        "adamw foreach 0.4 B fp32 parameters": adamw_foreach,
    }


def sample(stop, samples):
    while not stop.is_set():
        samples.append((time.perf_counter(), pynvml.nvmlDeviceGetPowerUsage(HANDLE) / 1e3,
                        pynvml.nvmlDeviceGetClockInfo(HANDLE, pynvml.NVML_CLOCK_SM)))
        time.sleep(SAMPLE_S)


def run(fn):
    fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end = torch.cuda.Event(enable_timing=True)
    end.record()
    end.synchronize()
    per_chunk = max(1, int(50 / max(start.elapsed_time(end), 1e-3)))
    time.sleep(COOL_S)
    samples, stop = [], threading.Event()
    sampler = threading.Thread(target=sample, args=(stop, samples))
    sampler.start()
    chunks, t0 = [], time.perf_counter()
    while time.perf_counter() - t0 < RUN_S:
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(per_chunk):
            fn()
        e.record()
        e.synchronize()
        chunks.append((time.perf_counter() - t0, s.elapsed_time(e) / per_chunk))
    stop.set()
    sampler.join()
    last = [ms for t, ms in chunks if t > RUN_S - 1.0]
    settled = [(w, mhz) for t, w, mhz in samples if t - t0 > RUN_S - 1.0]
    return {"calls_per_chunk": per_chunk, "burst_ms": round(chunks[0][1], 5),
            "settled_ms": round(statistics.median(last), 5),
            "settled_over_burst": round(statistics.median(last) / chunks[0][1], 4),
            "settled_power_w": round(statistics.median(w for w, _ in settled), 1),
            "settled_sm_mhz": statistics.median(mhz for _, mhz in settled),
            "trace": [[round(t - t0, 3), round(w, 1), mhz] for t, w, mhz in samples]}


def main(out_dir):
    out = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "date": time.strftime("%Y-%m-%d"),
           "power_limit_w": pynvml.nvmlDeviceGetEnforcedPowerLimit(HANDLE) / 1e3,
           "method": f"each class after {COOL_S} s idle, {RUN_S} s back to back in ~50 ms chunks (CUDA events); "
           f"NVML power and SM clock every {SAMPLE_S} s; settled = median over the last second",
           "idle_power_w": pynvml.nvmlDeviceGetPowerUsage(HANDLE) / 1e3, "classes": {}}
    for name, make in classes().items():
        try:
            row = run(make())
        except Exception as err:  # noqa: BLE001
            row = {"error": str(err).splitlines()[0][:200]}
        out["classes"][name] = row
        print(name, {k: v for k, v in row.items() if k != "trace"}, flush=True)
        torch.cuda.empty_cache()
        with open(os.path.join(out_dir, "power_by_kernel.json"), "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
