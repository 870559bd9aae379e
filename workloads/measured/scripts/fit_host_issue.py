#!/usr/bin/env python3
"""Fits a framework's host_issue_per_kernel (workloads/frameworks.yaml): the
host's time to issue one GPU op in eager mode, which bounds a small model's
step. Fitted to launch-bound steps this project measured on one H200
(models/devices/measured/nvidia_h200_small_models_clean_2026-11-28.json and
its repeat; each point the mean of the two runs).

    python3 fit_host_issue.py SIMCTL [FRAMEWORK]      (FRAMEWORK: pytorch)

In sample: the layer series, hidden 256 at micro-batch 1 (3, 6, 12, 24 and 48
layers), where the GPU is idle most of the step and the host time grows with
the ops the host issues. Out of sample (never fitted here): every other
size of the grid, which tests/workloads/host_issue_accuracy_test.cpp checks,
including the sizes where the GPU takes over. Each point is simulated from
configs/reference/measured_small_gpt_h200x1.yaml with --set; the fit
minimises the sum of squared log errors by golden-section search over
0-200 us.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

from fit_framework_factor import ROOT, overlay_framework

MEASURED = ["models/devices/measured/nvidia_h200_small_models_clean_2026-11-28.json",
            "models/devices/measured/nvidia_h200_small_models_clean_repeat_2026-11-28.json"]
CONFIG = "configs/reference/measured_small_gpt_h200x1.yaml"


def points():
    """(hidden, micro_batch, layers) -> mean measured step seconds over the runs, unprofiled rows only."""
    runs = [json.load(open(os.path.join(ROOT, path)))["clean"] for path in MEASURED]
    out = {}
    for rows in runs:
        for row in rows:
            if row["profiled_before"]:
                continue
            key = (row["hidden"], row["micro_batch"], row["layers"])
            out.setdefault(key, []).append(row["eager"]["step_s"])
    return {key: sum(v) / len(v) for key, v in out.items()}


def in_sample(key):
    hidden, micro_batch, _ = key
    return hidden == 256 and micro_batch == 1


def simulated_s(simctl, data_dir, key):
    hidden, micro_batch, layers = key
    sets = [f"workload.model.hidden={hidden}", f"workload.model.heads={max(2, hidden // 64)}",
            f"workload.model.layers={layers}", f"workload.micro_batch={micro_batch}",
            f"workload.global_batch={micro_batch}"]
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        args = [simctl, "run", os.path.join(data_dir, CONFIG), "--json", out.name]
        for s in sets:
            args += ["--set", s]
        subprocess.run(args, check=True, env=dict(os.environ, SIMCTL_DATA_DIR=data_dir), stdout=subprocess.DEVNULL)
        return json.load(open(out.name))["step_time_ms"] / 1e3


def main(simctl, framework):
    measured = {k: v for k, v in points().items() if in_sample(k)}

    def loss(us):
        def set_issue(entry):
            entry["host_issue_per_kernel"] = f"{us} us"
        data_dir = overlay_framework(framework, set_issue)
        return sum(math.log(simulated_s(simctl, data_dir, k) / t) ** 2 for k, t in measured.items())

    lo, hi = 0.0, 200.0
    golden = (math.sqrt(5) - 1) / 2
    a, b = hi - golden * (hi - lo), lo + golden * (hi - lo)
    fa, fb = loss(a), loss(b)
    while hi - lo > 0.05:
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - golden * (hi - lo)
            fa = loss(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + golden * (hi - lo)
            fb = loss(b)
    fit = (lo + hi) / 2
    print(f"{framework}: host_issue_per_kernel {fit:.2f} us (in sample: {sorted(measured)}); "
          f"recorded as {round(fit)} us")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "pytorch")
