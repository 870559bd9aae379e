#!/usr/bin/env python3
"""Fits a framework's kernel time factor for one GPU generation on that
generation's in-sample reference runs (workloads/measured/reference_points.yaml,
sample: in), as workloads/frameworks.yaml's kernel_time_factor_by_architecture
records it.

    python3 fit_framework_factor.py SIMCTL FRAMEWORK ARCHITECTURE POINT_ID...

Simulates each point's config at factor 1.0 and 1.2 (the step time is linear
in the factor: it stretches every compute kernel), solves for the factor that
reproduces each point's measured step, and prints the least-squares fit of the
log errors over the points (clamped at 1: a factor never speeds kernels up).
The points are read from the reference file; only `sample: in` ones are
accepted, so an out-of-sample point cannot be fitted by mistake.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def overlay(factor, framework, architecture):
    """A data tree that is the source tree but for one factor in frameworks.yaml."""
    def set_factor(entry):
        entry.setdefault("kernel_time_factor_by_architecture", {})[architecture] = factor
    return overlay_framework(framework, set_factor)


def overlay_framework(framework, change):
    """A data tree that is the source tree but for one entry of frameworks.yaml,
    which change(entry) edits in place."""
    tmp = tempfile.mkdtemp(prefix="simctl_fit_")
    for name in os.listdir(ROOT):
        if name != "workloads":
            os.symlink(os.path.join(ROOT, name), os.path.join(tmp, name))
    os.mkdir(os.path.join(tmp, "workloads"))
    for name in os.listdir(os.path.join(ROOT, "workloads")):
        if name != "frameworks.yaml":
            os.symlink(os.path.join(ROOT, "workloads", name), os.path.join(tmp, "workloads", name))
    text = open(os.path.join(ROOT, "workloads", "frameworks.yaml")).read()
    data = yaml.safe_load(text)
    change(data["frameworks"][framework])
    with open(os.path.join(tmp, "workloads", "frameworks.yaml"), "w") as f:
        yaml.safe_dump(data, f)
    return tmp


def report(simctl, data_dir, config):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        env = dict(os.environ, SIMCTL_DATA_DIR=data_dir)
        subprocess.run([simctl, "run", os.path.join(data_dir, config), "--json", out.name], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        return json.load(open(out.name))


def step_s(r):
    return r["step_time_ms"] / 1e3


def measured_step_s(point, r):
    """The point's measured seconds per step, from its metric and the run's
    tokens per step per GPU (r: a simulated report of the same config)."""
    if point["metric"] == "step_s":
        return point["measured"]
    if point["metric"] == "tokens_per_s_per_gpu":
        tokens_per_gpu_per_step = r["tokens_per_s"] * step_s(r) / r["gpus"]
        return tokens_per_gpu_per_step / point["measured"]
    raise SystemExit(f"{point['id']}: metric {point['metric']} not supported here")


def main(simctl, framework, architecture, ids):
    points = {p["id"]: p for p in yaml.safe_load(open(os.path.join(ROOT, "workloads/measured/reference_points.yaml")))[
        "reference_points"]}
    low, high = overlay(1.0, framework, architecture), overlay(1.2, framework, architecture)
    logs = []
    for pid in ids:
        p = points[pid]
        if p["sample"] != "in":
            raise SystemExit(f"{pid} is out of sample: a factor is never fitted on it")
        ra = report(simctl, low, p["config"])
        a, b = step_s(ra), step_s(report(simctl, high, p["config"]))
        target = measured_step_s(p, ra)
        f = 1.0 + (target - a) / ((b - a) / 0.2)
        print(f"{pid}: {a:.4f} s at factor 1.0, {b:.4f} s at 1.2, measured {target:.4f} s -> factor {f:.4f}")
        logs.append((a, b, target))
    # Least squares of log(simulated(f) / measured) over the points, by bisection on its derivative.
    def loss(f):
        return sum(math.log((a + (b - a) / 0.2 * (f - 1.0)) / t) ** 2 for a, b, t in logs)
    lo, hi = 0.5, 2.0
    for _ in range(100):
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        lo, hi = (lo, m2) if loss(m1) < loss(m2) else (m1, hi)
    fit = (lo + hi) / 2
    print(f"{framework} on {architecture}: least-squares factor {fit:.4f}; recorded as {max(1.0, round(fit, 2)):.2f}")


if __name__ == "__main__":
    if len(sys.argv) < 5:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
