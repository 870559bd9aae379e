#!/usr/bin/env python3
"""Megatron plans across nodes against vTrain's public multi-node
measurements: 119 measured iterations of GPTs of 3.6B, 18.4B, 39.1B and
175B parameters on 64 to 512 A100s, Megatron-DeepSpeed with fp16, full
activation recompute and 1F1B, TP 1-16 x DP x PP 1-32
(VIA-Research/vTrain@f8dda8473a48 data/ground_truth_multi.csv; its
config/validation/multi/*.json give the cluster as vTrain models it: 8 GPUs
a node, 800 Gb/s between nodes per node, gradient buckets off).

    python3 vtrain_multi_node.py SIMCTL GROUND_TRUTH_MULTI.csv

Each row is simulated under `megatron-lm` on DGX A100 nodes whose eight
NICs carry 100 Gb/s each (the same 800 Gb/s a node, 12.5 GB/s a GPU, on a
non-blocking rail-optimised fat tree), with the row's model and plan as
vtrain_small_tp.py lays them out. It prints every row's error and the
median signed and absolute error per model, per TP degree and in all, and
how often simctl orders two plans of one model as the measurements do.
Nothing is fitted here: it is the evidence docs/accuracy.md reads.
"""
import csv
import os
import statistics
import sys
import tempfile
from collections import defaultdict

from fit_framework_factor import ROOT
from vtrain_small_tp import WORKLOAD, step_ms

CONFIG = """name: vTrain multi-node row {i}
system:
  name: {nodes}x DGX A100, 800 Gb/s a node
  node_templates:
    dgx_a100: {{import: {root}/configs/systems/dgx_a100.yaml}}
  nodes:
    - {{template: dgx_a100, count: {nodes}}}
  fabric: {{kind: fat_tree, tiers: 2, radix: 64, oversubscription: 1, rail_optimised: true, link: infiniband_edr,
           nics: "nic[*]"}}
""" + WORKLOAD


def rows(path):
    with open(path, encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        next(reader)
        for r in reader:
            billions, gpus, gb, mb, h, a, l, s, tp, dp, pp, t = r
            yield dict(model=billions + "B", gpus=int(gpus), gb=int(gb), mb=int(mb), h=int(h), a=int(a), l=int(l),
                       s=int(s), tp=int(tp), dp=int(dp), pp=int(pp), ms=float(t))


def simulate(simctl, row, i, scratch):
    config = CONFIG.format(i=i, root=ROOT, nodes=row["gpus"] // 8, ffn=4 * row["h"], **row)
    return step_ms(simctl, config, scratch)


def summarise(label, errors):
    print(f"  {label}: {len(errors)} rows, median error {100 * statistics.median(errors):+.1f} %, "
          f"median |error| {100 * statistics.median(abs(e) for e in errors):.1f} %")


def ordered_pairs(results):
    """Pairs of one model's plans whose measured times differ by over 5 %:
    how many simctl orders the same way."""
    agree = total = 0
    for a in range(len(results)):
        for b in range(a + 1, len(results)):
            ra, rb = results[a], results[b]
            if ra[0]["model"] != rb[0]["model"] or abs(ra[0]["ms"] / rb[0]["ms"] - 1) < 0.05:
                continue
            total += 1
            agree += (ra[0]["ms"] < rb[0]["ms"]) == (ra[1] < rb[1])
    return agree, total


def main():
    simctl, truth = sys.argv[1], sys.argv[2]
    scratch = tempfile.mkdtemp(prefix="simctl_vtrain_multi_")
    results = []
    for i, row in enumerate(rows(truth)):
        sim = simulate(simctl, row, i, scratch)
        if sim is None:
            continue
        err = (sim - row["ms"]) / row["ms"]
        results.append((row, sim, err))
        print(f"{row['model']:>6} TP {row['tp']:2} DP {row['dp']:2} PP {row['pp']:2} mb {row['mb']:2}: "
              f"measured {row['ms']:9.1f} ms, simulated {sim:9.1f} ms, {100 * err:+6.1f} %", flush=True)
    by_model, by_tp = defaultdict(list), defaultdict(list)
    for row, _, err in results:
        by_model[row["model"]].append(err)
        by_tp[row["tp"]].append(err)
    for model in sorted(by_model, key=lambda m: float(m[:-1])):
        summarise(model, by_model[model])
    for tp in sorted(by_tp):
        summarise(f"TP {tp}", by_tp[tp])
    summarise("all", [e for _, _, e in results])
    agree, total = ordered_pairs(results)
    print(f"  plan order: {agree} of {total} pairs of one model's plans (measured over 5 % apart) ordered alike")


if __name__ == "__main__":
    main()
