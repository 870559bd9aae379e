#!/usr/bin/env python3
"""Simulates each BERT SQuAD step of workloads/measured/dle_bert_squad_steps.yaml
from configs/reference/dle_bert_large_squad.yaml and prints docs/accuracy.md's
encoder table (markdown). Nothing is fitted to these points.

    python3 encoder_accuracy.py SIMCTL
"""
import json
import os
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CONFIG = os.path.join(ROOT, "configs/reference/dle_bert_large_squad.yaml")
POINTS = os.path.join(ROOT, "workloads/measured/dle_bert_squad_steps.yaml")


def simulate(simctl, point):
    gpus = point["gpus"]
    sets = [f"system={os.path.join(ROOT, point['system'])}", f"workload.model={point['model']}", f"workload.precision={point['precision']}",
            f"workload.micro_batch={point['micro_batch']}",
            f"workload.global_batch={point['micro_batch'] * gpus}", f"workload.parallel.data={gpus}"]
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        args = [simctl, "run", CONFIG, "--json", out.name]
        for s in sets:
            args += ["--set", s]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        return json.load(open(out.name))["step_time_ms"] / 1e3


def main(simctl):
    points = yaml.safe_load(open(POINTS))["points"]
    print("| model | GPU | GPUs | precision | micro-batch | measured [s/step] | simulated [s/step] | error | missing [ms] |")
    print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for p in points:
        sim = simulate(simctl, p)
        error = (sim / p["step_s"] - 1) * 100
        missing = (p["step_s"] - sim) * 1e3
        print(f"| {p['model']} | {p['gpu']} | {p['gpus']} | {p['precision']} | {p['micro_batch']} | {p['step_s']:.4f} | "
              f"{sim:.4f} | {error:+.1f} % | {missing:.0f} |")


if __name__ == "__main__":
    main(sys.argv[1])
