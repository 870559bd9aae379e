#!/usr/bin/env python3
"""Fits the flash2 (AITER) attention curves of models/devices/catalogue/gpus.yaml
to the public AMD points of kernel_points.yaml, and prints each fit with its
in- and out-of-sample errors.

  mi350x (CDNA4): the forward curve (attention.kernels.flash2) to HipKittens'
      AITER figures (split fit: 2k and 8k), and the backward the catalogue
      derives from it: the forward curve times the Hopper cuDNN fit's
      backward/forward ratio at head dim 128 (gpus.yaml, h100-sxm: 0.5733 /
      0.7087), an assumption: HipKittens publishes no backward.
  mi300x (CDNA3): forward and backward to AITER's own MI300X table
      (ROCm/aiter op_tests/cpp/mha/README.md, fwd_v3 and bwd_v3 with fp16
      atomics), by each point's fit_split. Reported only: the catalogue does
      not use this fit (kernel_points.yaml and docs/accuracy.md say why).

The points were measured at the clock the part's power cap holds, so the
model prices them at the burst peak times the power model's slowdown (gpus.yaml:
CDNA3's, which mi350x carries) plus the 3 us launch overhead, as
models/devices/compute_model.cpp does for a sustained kernel. One head
dimension (128): three free numbers per pass, max_efficiency, seq_overhead
and the causal factor. FLOPs on FlashAttention's convention: forward
4*b*h*s^2*d, backward 2.5x that, both halved when causal.

The mi350x bf16 GEMM efficiency is not fitted here: it is linear in the
modelled figure, so it was scaled until the 8192 cube (D-HK-BF16-MI350X-8192
in reference_points.yaml) came out at its measured 1116.7 TFLOP/s
(tests/devices/calibration_test.cpp prints it). Needs scipy and PyYAML.

Usage: python3 fit_rocm_attention.py [mi350x|mi300x]   (default mi350x)
"""
import math
import os
import statistics
import sys

import yaml
from scipy.optimize import least_squares

HERE = os.path.dirname(os.path.abspath(__file__))
SLOWDOWN = 1.7399       # CDNA3's power model at the part's TDP (mi350x carries it)
LAUNCH_S = 3e-6         # launch_overhead of both parts
HOPPER_BWD_OVER_FWD = 0.5733 / 0.7087
PARTS = {  # bf16 datasheet peak (burst clock); the key naming each point's split; passes fitted
    "mi350x": {"peak": 2306.9e12, "split_key": "split", "passes": ("forward",)},
    "mi300x": {"peak": 1307.4e12, "split_key": "fit_split", "passes": ("forward", "backward")},
}


def flops(p):
    return ((2.5 if p["pass"] == "backward" else 1.0) * 4 * p["batch"] * p["heads"] * p["seq_len"] ** 2
            * p["head_dim"] / (2 if p["causal"] else 1))


def modelled_tflops(q, p, peak):
    max_eff, overhead, causal_factor = q
    keys = p["seq_len"] / 2 if p["causal"] else p["seq_len"]
    eff = max_eff * keys / (keys + overhead) * (causal_factor if p["causal"] else 1.0)
    t = flops(p) / (peak * min(1.0, eff)) * SLOWDOWN + LAUNCH_S
    return flops(p) / t / 1e12


def fit_pass(gpu, points, name, part):
    split = lambda p: p[part["split_key"]]  # noqa: E731
    fit = [p for p in points if split(p) == "fit"]
    q = least_squares(lambda v: [math.log(modelled_tflops(v, p, part["peak"]) / p["tflops"]) for p in fit],
                      [0.7, 300, 1.0], bounds=([0.1, 0, 0.5], [1.0, 20000, 1.5])).x
    print(f"{gpu} flash2 {name}: {{max_efficiency: {{128: {q[0]:.4f}}}, seq_overhead: {q[1]:.0f}, "
          f"causal_factor: {q[2]:.3f}}}")
    for which in ("fit", "held_out"):
        errors = [modelled_tflops(q, p, part["peak"]) / p["tflops"] - 1 for p in points if split(p) == which]
        print(f"  {which:9s} n={len(errors):2d} median |error| {100 * statistics.median(map(abs, errors)):.1f} %, "
              f"max {100 * max(map(abs, errors)):.1f} %")
    return q


def main():
    gpu = sys.argv[1] if len(sys.argv) > 1 else "mi350x"
    part = PARTS[gpu]
    with open(os.path.join(HERE, "..", "kernel_points.yaml")) as f:
        points = [p for p in yaml.safe_load(f)["attention"] if p["gpu"] == gpu]
    for name in part["passes"]:
        q = fit_pass(gpu, [p for p in points if p["pass"] == name], name, part)
    if part["passes"] == ("forward",):
        print(f"{gpu} flash2 backward (assumed): {{max_efficiency: {{128: {q[0] * HOPPER_BWD_OVER_FWD:.4f}}}, "
              f"seq_overhead: {q[1]:.0f}, causal_factor: {q[2]:.3f}}}")


if __name__ == "__main__":
    main()
