#!/usr/bin/env python3
"""Profiles single-GPU training steps (the MPT-760M and Llama 3 8B-shaped steps
of measure_train_step.py) with torch.profiler: how much of a step the GPU is
busy, and in which kernel classes (GEMM, attention, other), so that a
step's power draw and clock (its nvidia-smi log) can be read against its
kernel mix.

    python3 measure_step_profile.py OUT_DIR      (writes OUT_DIR/step_profile.json)

For each model: 6 warm-up steps back to back (the clock settles as in a
sustained run), then 2 steps under the profiler. Kernel classes by name:
GEMM (gemm, xmma, cutlass, nvjet, cublas), attention (flash, fmha, cudnn,
attention, sdpa), the rest other. busy = the union of kernel intervals.
"""
import json
import os
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_train_memory import MODELS, build, static_state  # noqa: E402
from measure_train_step import step  # noqa: E402

RUNS = [("mpt-760m", None, 12, 4), ("llama3-8b", 8, 1, 4)]  # name, layers, micro-batch, accumulation


def kernel_class(name):
    n = name.lower()
    if any(k in n for k in ("flash", "fmha", "cudnn", "attention", "sdpa")):
        return "attention"
    if any(k in n for k in ("gemm", "xmma", "cutlass", "nvjet", "cublas")):
        return "gemm"
    return "other"


def kernel_events(prof):
    """The GPU kernels a torch.profiler run recorded (not the operators that launched them)."""
    return [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]


def union_us(intervals):
    total, end = 0.0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def profile_run(name, layers, micro_batch, accumulation):
    c = dict(MODELS[name])
    if layers:
        c["layers"] = layers
    model = build(c, c["layers"], "none", "bf16")
    opt = static_state(model)
    batches = [torch.randint(0, c["vocab"], (micro_batch, c["seq"]), device="cuda") for _ in range(accumulation)]
    for _ in range(6):
        step(model, opt, batches)
    torch.cuda.synchronize()
    t0 = time.time()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(2):
            step(model, opt, batches)
        torch.cuda.synchronize()
    wall_us = (time.time() - t0) * 1e6
    kernels = kernel_events(prof)
    by_class, by_name, spans = {}, {}, []
    for e in kernels:
        s, d = e.time_range.start, e.time_range.elapsed_us()
        spans.append((s, s + d))
        by_class[kernel_class(e.name)] = by_class.get(kernel_class(e.name), 0.0) + d
        by_name[e.name] = by_name.get(e.name, 0.0) + d
    first, last = min(s for s, _ in spans), max(e for _, e in spans)
    top = sorted(by_name.items(), key=lambda kv: -kv[1])[:25]
    del model, opt
    torch.cuda.empty_cache()
    return {"model": name, "layers": c["layers"], "micro_batch": micro_batch, "accumulation": accumulation,
            "steps": 2, "wall_us": round(wall_us), "kernel_span_us": round(last - first),
            "busy_us": round(union_us(spans)), "kernels": len(kernels),
            "by_class_us": {k: round(v) for k, v in by_class.items()},
            "top_kernels_us": [[n[:120], round(v)] for n, v in top]}


def main(out_dir):
    result = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
              "date": time.strftime("%Y-%m-%d"), "runs": [], "errors": []}
    for run in RUNS:
        try:
            result["runs"].append(profile_run(*run))
        except Exception as e:  # noqa: BLE001 - keep what the other run measured
            result["errors"].append(f"{run[0]}: {type(e).__name__}: {e}"[:400])
        with open(os.path.join(out_dir, "step_profile.json"), "w") as f:
            json.dump(result, f, indent=1)
        r = result["runs"][-1] if result["runs"] else None
        if r:
            print(r["model"], r["wall_us"], r["kernel_span_us"], r["busy_us"], r["by_class_us"], flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
