#!/usr/bin/env python3
"""Fits the CDNA4 flash2 (AITER) forward curve of models/devices/catalogue/gpus.yaml
(mi350x, attention.kernels.flash2) to the MI350X points of kernel_points.yaml
(split fit: 2k and 8k), and prints the fit with the in- and out-of-sample
errors and the backward curve the catalogue derives from it.

The points were measured at the clock the 1000 W part holds, so the model
prices them at the burst peak times the power model's slowdown (gpus.yaml,
mi350x power_model: carried from CDNA3) plus the 3 us launch overhead, as
models/devices/compute_model.cpp does for a sustained kernel. One head
dimension (128): three free numbers, max_efficiency, seq_overhead and the
causal factor. The backward is the forward curve times the Hopper cuDNN fit's
backward/forward ratio at head dim 128 (gpus.yaml, h100-sxm: 0.5733 / 0.7087),
an assumption: no CDNA4 backward figure is public.

The bf16 GEMM efficiency is not fitted here: it is linear in the modelled
figure, so it was scaled until the 8192 cube (D-HK-BF16-MI350X-8192 in
reference_points.yaml) came out at its measured 1116.7 TFLOP/s
(tests/devices/calibration_test.cpp prints it). Needs scipy and PyYAML.

Usage: python3 fit_cdna4_kernels.py
"""
import math
import os
import statistics

import yaml
from scipy.optimize import least_squares

HERE = os.path.dirname(os.path.abspath(__file__))
PEAK = 2306.9e12        # mi350x bf16, datasheet (burst clock)
SLOWDOWN = 1.7399       # mi350x power model at its 1000 W TDP
LAUNCH_S = 3e-6         # mi350x launch_overhead
HOPPER_BWD_OVER_FWD = 0.5733 / 0.7087


def flops(p):
    return 4 * p["batch"] * p["heads"] * p["seq_len"] ** 2 * p["head_dim"] / (2 if p["causal"] else 1)


def modelled_tflops(q, p):
    max_eff, overhead, causal_factor = q
    keys = p["seq_len"] / 2 if p["causal"] else p["seq_len"]
    eff = max_eff * keys / (keys + overhead) * (causal_factor if p["causal"] else 1.0)
    t = flops(p) / (PEAK * min(1.0, eff)) * SLOWDOWN + LAUNCH_S
    return flops(p) / t / 1e12


def main():
    with open(os.path.join(HERE, "..", "kernel_points.yaml")) as f:
        points = [p for p in yaml.safe_load(f)["attention"] if p["gpu"] == "mi350x" and p["pass"] == "forward"]
    fit = [p for p in points if p["split"] == "fit"]
    q = least_squares(lambda v: [math.log(modelled_tflops(v, p) / p["tflops"]) for p in fit], [0.7, 300, 1.0],
                      bounds=([0.1, 0, 0.5], [1.0, 20000, 1.5])).x
    print(f"mi350x flash2 forward: {{max_efficiency: {{128: {q[0]:.4f}}}, seq_overhead: {q[1]:.0f}, "
          f"causal_factor: {q[2]:.3f}}}")
    print(f"mi350x flash2 backward (assumed): {{max_efficiency: {{128: {q[0] * HOPPER_BWD_OVER_FWD:.4f}}}, "
          f"seq_overhead: {q[1]:.0f}, causal_factor: {q[2]:.3f}}}")
    for split in ("fit", "held_out"):
        errors = [modelled_tflops(q, p) / p["tflops"] - 1 for p in points if p["split"] == split]
        print(f"  {split:9s} n={len(errors):2d} median |error| {100 * statistics.median(map(abs, errors)):.1f} %, "
              f"max {100 * max(map(abs, errors)):.1f} %")


if __name__ == "__main__":
    main()
