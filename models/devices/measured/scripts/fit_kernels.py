#!/usr/bin/env python3
"""Fits the Hopper GEMM and fused-attention parameters of the GPU catalogue
(models/devices/catalogue/gpus.yaml, h100-sxm) to the in-sample points of
kernel_points.yaml, and prints them with the in- and out-of-sample errors.
Mirrors models/devices/gemm_efficiency.cpp and compute_model.cpp (launch 2 us,
memory roofline at 0.876 of 3.35 TB/s). Needs numpy, scipy and PyYAML.

Usage: python3 fit_kernels.py
"""
import math
import os
import statistics

import yaml
from scipy.optimize import least_squares

HERE = os.path.dirname(os.path.abspath(__file__))
PEAK = {"bf16": 989.4e12, "fp16": 989.4e12, "fp8": 1978.9e12}
ELEMENT = {"bf16": 2, "fp16": 2, "fp8": 1}
SMS, LAUNCH_S, BANDWIDTH = 132, 2e-6, 3.35e12 * 0.876
TILES = [(256, 128, 1.0), (128, 128, 0.9), (128, 64, 0.8), (64, 64, 0.6)]  # kept from the catalogue
HEAD_DIMS = (64, 128, 256)


def ceil_div(a, b):
    return -(-a // b)


def utilisation(m, n, tm, tn, tail):
    tiles = ceil_div(m, tm) * ceil_div(n, tn)
    waves = tiles // SMS
    if tiles % SMS:
        waves += min(1.0, (tiles % SMS) / SMS / tail)
    return m * n / (waves * SMS * tm * tn)


def gemm_time(x, p):
    max_eff = {"bf16": x[0], "fp16": x[0] * x[1], "fp8": x[2]}[p["dtype"]]
    k_overhead = x[4] if p["dtype"] == "fp8" else x[3]
    m, n, k = p["m"], p["n"], p["k"]
    best = max(rel * max(utilisation(m, n, tm, tn, x[5]), utilisation(m, n, tn, tm, x[5])) for tm, tn, rel in TILES)
    compute = 2 * m * n * k / (PEAK[p["dtype"]] * max_eff * best * k / (k + k_overhead))
    memory = (ELEMENT[p["dtype"]] * (m * k + k * n) + 2 * m * n) / BANDWIDTH
    return max(compute, memory) + LAUNCH_S


def attention_efficiency(q, p):
    e = sorted(zip(HEAD_DIMS, q[:3]))
    hd = min(max(p["head_dim"], e[0][0]), e[-1][0])
    for (d0, e0), (d1, e1) in zip(e, e[1:]):
        if d0 <= hd <= d1:
            base = e0 + (hd - d0) / (d1 - d0) * (e1 - e0)
            break
    keys = p["seq_len"] / 2 if p["causal"] else p["seq_len"]
    return base * keys / (keys + q[3]) * (q[4] if p["causal"] else 1.0)


def attention_flops(p):
    f = 4 * p["batch"] * p["heads"] * p["seq_len"] ** 2 * p["head_dim"] / (2 if p["causal"] else 1)
    return f * (2.5 if p["pass"] == "backward" else 1.0)


def attention_tflops(q, p, gap_s):
    t = attention_flops(p) / (PEAK["bf16"] * attention_efficiency(q, p)) + LAUNCH_S + gap_s
    return attention_flops(p) / t / 1e12


def report(name, errors_by_split):
    for split, errors in errors_by_split.items():
        if errors:
            a = [abs(e) for e in errors]
            print(f"  {name:24s} {split:9s} n={len(a):3d} median {100 * statistics.median(a):5.1f}% "
                  f"max {100 * max(a):5.1f}%")


def main():
    with open(os.path.join(HERE, "..", "kernel_points.yaml")) as f:
        data = yaml.safe_load(f)
    gemms = [p for p in data["gemm"] if p["split"] != "excluded" and p["gpu"] == "h100-sxm"]

    def gemm_residuals(x, points):
        return [math.log(2 * p["m"] * p["n"] * p["k"] / (gemm_time(x, p) + p["harness_gap_us"] * 1e-6) / 1e12 /
                         p["tflops"]) for p in points]

    fit = [p for p in gemms if p["split"] == "fit"]
    x = least_squares(lambda v: gemm_residuals(v, fit), [0.8, 1.0, 0.7, 128, 256, 0.8],
                      bounds=([0.3, 0.8, 0.3, 0, 0, 0.05], [1, 1.1, 1, 4000, 8000, 1])).x
    print(f"gemm: max_efficiency bf16 {x[0]:.4f} fp16 {x[0] * x[1]:.4f} fp8 {x[2]:.4f}; k_overhead bf16/fp16 "
          f"{x[3]:.0f} fp8 {x[4]:.0f}; tail_split_efficiency {x[5]:.3f}")
    for dtype in ("bf16", "fp16", "fp8"):
        report(f"gemm {dtype}", {s: [math.exp(r) - 1 for r in gemm_residuals(x, [p for p in gemms if
                                 p["dtype"] == dtype and p["split"] == s])] for s in ("fit", "held_out")})
    for kernel in ("flash2", "cudnn"):
        for pas in ("forward", "backward"):
            pts = [p for p in data["attention"] if p["kernel"] == kernel and p["pass"] == pas and
                   p["gpu"] == "h100-sxm"]

            def residuals(q, points):
                return [math.log(attention_tflops(q, p, p["harness_gap_us"] * 1e-6) / p["tflops"]) for p in points]

            q = least_squares(lambda v: residuals(v, [p for p in pts if p["split"] == "fit"]),
                              [0.3, 0.35, 0.35, 300, 0.9], bounds=([0.05] * 3 + [0, 0.3], [1] * 3 + [20000, 1.5])).x
            print(f"{kernel} {pas}: max_efficiency {{64: {q[0]:.4f}, 128: {q[1]:.4f}, 256: {q[2]:.4f}}}, "
                  f"seq_overhead {q[3]:.0f}, causal_factor {q[4]:.3f}")
            report(f"{kernel} {pas}", {s: [math.exp(r) - 1 for r in residuals(q, [p for p in pts if
                                       p["split"] == s])] for s in ("fit", "held_out")})
            if kernel == "cudnn":
                globals()["cudnn_" + pas] = q
    fa3 = [p for p in data["attention"] if p["kernel"] == "flash3" and p["split"] == "fit"]
    r = least_squares(lambda v: [math.log(PEAK["bf16"] * v[0] * p["seq_len"] / (p["seq_len"] + v[1]) /
                                          (attention_flops(p) / (attention_flops(p) / p["tflops"] / 1e12 - LAUNCH_S)))
                                 for p in fa3], [0.6, 300], bounds=([0.1, 0], [1, 20000])).x
    scale = r[0] / cudnn_forward[1]  # noqa: F821 - set above
    print(f"flash3 forward hd128 max_efficiency {r[0]:.4f}, seq_overhead {r[1]:.0f}; FA3/cuDNN at hd128 {scale:.3f}")
    print("  flash3 forward: max_efficiency {" + ", ".join(f"{d}: {scale * e:.4f}" for d, e in
                                                           zip(HEAD_DIMS, cudnn_forward[:3])) + "}")  # noqa: F821
    print("  flash3 backward: max_efficiency {" + ", ".join(f"{d}: {scale * e:.4f}" for d, e in
                                                            zip(HEAD_DIMS, cudnn_backward[:3])) + "}")  # noqa: F821


if __name__ == "__main__":
    main()
