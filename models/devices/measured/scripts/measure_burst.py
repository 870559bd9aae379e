#!/usr/bin/env python3
"""The Hopper kernel fit's points timed at burst clock: before each timing
the GPU idles COOL_S so that its clock recovers from the 700 W cap, and the
SM clock (NVML) is read right after each timing. measure_back_to_back.py
timed the same points in one sweep with no pause, and its nvidia-smi log
shows the card held at the cap, 1335-1470 MHz, for the whole bf16 GEMM
sweep: those are sustained figures, not burst ones (issue #16).

    python3 measure_burst.py KERNEL_POINTS_YAML OUT_DIR     (writes OUT_DIR/burst.json)
"""
import json
import os
import sys
import time

import pynvml
import torch
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_back_to_back import attention_calls, back_to_back_ms, gemm_call, measure_attention  # noqa: E402
from measure_gpu import time_ms  # noqa: E402

COOL_S = 0.25
pynvml.nvmlInit()
HANDLE = pynvml.nvmlDeviceGetHandleByIndex(0)


def sm_mhz():
    return pynvml.nvmlDeviceGetClockInfo(HANDLE, pynvml.NVML_CLOCK_SM)


def cooled(timing):
    """(ms, SM clock in MHz read right after) of one timing, taken after an idle pause."""
    torch.cuda.synchronize()
    time.sleep(COOL_S)
    ms = timing()
    return round(ms, 5), sm_mhz()


def gemm_row(dtype, m, n, k):
    fn = gemm_call(dtype, m, n, k)
    per_call, per_call_mhz = cooled(lambda: time_ms(fn))
    b2b, b2b_mhz = cooled(lambda: back_to_back_ms(fn))
    return {"dtype": dtype, "m": m, "n": n, "k": k, "per_call_ms": per_call, "per_call_sm_mhz": per_call_mhz,
            "back_to_back_ms": b2b, "back_to_back_sm_mhz": b2b_mhz}


def attention_row(backend, batch, heads, seq, head_dim, causal):
    context, fwd, fwd_bwd = attention_calls(backend, batch, heads, seq, head_dim, causal)
    row = {}
    with context:
        for name, fn in (("fwd", fwd), ("fwd_bwd", fwd_bwd)):
            row[f"{name}_per_call_ms"], row[f"{name}_per_call_sm_mhz"] = cooled(lambda: time_ms(fn, reps=10, warmup=3))
            row[f"{name}_back_to_back_ms"], row[f"{name}_back_to_back_sm_mhz"] = cooled(
                lambda: back_to_back_ms(fn, calls=10))
    return row


def save(out, out_dir):
    with open(os.path.join(out_dir, "burst.json"), "w") as f:
        json.dump(out, f, indent=1)


def main(points_path, out_dir):
    with open(points_path) as f:
        points = yaml.safe_load(f)
    out = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
           "cudnn": torch.backends.cudnn.version(), "date": time.strftime("%Y-%m-%d"),
           "method": f"each timing after {COOL_S} s idle, SM clock read by NVML right after it; per_call: "
           "measure_gpu.time_ms (median of 20 (GEMM) or 10 (attention) CUDA-event-timed eager calls after "
           "warm-ups); back_to_back: measure_back_to_back.back_to_back_ms (CUDA events around 20 (GEMM) or 10 "
           "(attention) unsynchronised calls, per call, median of 3); random normal data; fp8 as torch._scaled_mm",
           "gemm": [], "attention": []}
    time.sleep(3)
    seen = set()
    for dtype in ("bf16", "fp8"):
        for p in points["gemm"]:
            key = (p["dtype"], p["m"], p["n"], p["k"])
            if p["dtype"] != dtype or key in seen:
                continue
            seen.add(key)
            try:
                row = gemm_row(*key)
            except Exception as err:  # noqa: BLE001
                row = {"dtype": dtype, "m": p["m"], "n": p["n"], "k": p["k"], "error": str(err).splitlines()[0][:200]}
            out["gemm"].append(row)
            print("gemm", row, flush=True)
            torch.cuda.empty_cache()
        save(out, out_dir)
    out["attention"] = measure_attention(("cudnn", "flash"), attention_row,
                                         lambda rows: save(dict(out, attention=rows), out_dir))
    save(out, out_dir)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
