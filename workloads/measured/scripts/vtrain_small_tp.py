#!/usr/bin/env python3
"""Small GPTs under tensor parallelism against vTrain's public measurements
(issue #36): 1,440 measured iterations of GPT models of hidden 1024-2048,
12-24 layers, sequence 1024 on one 8x A100 node, Megatron-DeepSpeed with
fp16, full activation recompute and dropout 0.1, TP 1-8 x DP x PP
(VIA-Research/vTrain@f8dda8473a48 data/ground_truth_single.csv; the
codebase per its data/README.md; PyTorch 2.0.1 with apex per its
docker/Dockerfile).

    python3 vtrain_small_tp.py SIMCTL GROUND_TRUTH.csv [HOST_US ...]

Each row is simulated on configs/systems/dgx_a100.yaml under `megatron-lm`
with the row's model and plan (GPT-2 vocabulary padded to 50304, learned
positions, LayerNorm, biases, tied embeddings, unfused attention as that
Megatron ran it), once per host issue time given (microseconds per op; the
framework's own when none), and the median signed error is printed per
TP degree and per (TP, micro-batch, pipelined or not). Nothing is fitted
here: it is the evidence docs/accuracy.md reads.
"""
import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

from fit_framework_factor import ROOT, overlay_framework

# The row's model and plan as Megatron-DeepSpeed ran vTrain's sets; also
# vtrain_multi_node.py's.
WORKLOAD = """workload:
  model: {{layers: {l}, hidden: {h}, heads: {a}, ffn: {ffn}, vocab: 50304, seq_len: {s}, position: learned,
          norm: layernorm, bias: true, tied_embeddings: true}}
  parallel: {{data: {dp}, tensor: {tp}, pipeline: {pp}}}
  micro_batch: {mb}
  global_batch: {gb}
  precision: fp16
  activation_recompute: full
  attention: unfused
  dropout: 0.1
  framework: megatron-lm
"""
CONFIG = """name: vTrain row {i}
system: {root}/configs/systems/dgx_a100.yaml
""" + WORKLOAD


def rows(path):
    with open(path, encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        next(reader)
        for r in reader:
            g, gb, mb, h, a, l, s, tp, dp, pp, t = r
            yield dict(gb=int(gb), mb=int(mb), h=int(h), a=int(a), l=int(l), s=int(s), tp=int(tp), dp=int(dp),
                       pp=int(pp), ms=float(t))


def step_ms(simctl, config, scratch, data_dir=ROOT):
    """The simulated step of a run config's text, or None (with simctl's
    last error line printed) when it does not run."""
    path = os.path.join(scratch, "row.yaml")
    with open(path, "w") as f:
        f.write(config)
    env = dict(os.environ, SIMCTL_DATA_DIR=data_dir)
    out = subprocess.run([simctl, "run", path], capture_output=True, text=True, env=env)
    m = re.search(r"Step time\s+([\d.]+) ms", out.stdout)
    if not m:
        print(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "no step time")
    return float(m.group(1)) if m else None


def simulate(simctl, data_dir, row, i, scratch):
    return step_ms(simctl, CONFIG.format(i=i, root=data_dir, ffn=4 * row["h"], **row), scratch, data_dir)


def main():
    simctl, truth = sys.argv[1], sys.argv[2]
    hosts = [None] + [float(x) for x in sys.argv[3:]]
    data = list(rows(truth))
    scratch = tempfile.mkdtemp(prefix="simctl_vtrain_")
    for host in hosts:
        data_dir = ROOT if host is None else overlay_framework(
            "megatron-lm", lambda e, us=host: e.__setitem__("host_issue_per_kernel", f"{us:g} us"))
        by_tp, by_cell = defaultdict(list), defaultdict(list)
        for i, row in enumerate(data):
            sim = simulate(simctl, data_dir, row, i, scratch)
            if sim is None:
                continue
            err = (sim - row["ms"]) / row["ms"]
            by_tp[row["tp"]].append(err)
            by_cell[(row["tp"], row["mb"], row["pp"] > 1)].append(err)
        label = "framework's own" if host is None else f"{host:g} us"
        print(f"host issue per op: {label}")
        for tp in sorted(by_tp):
            v = by_tp[tp]
            print(f"  TP {tp}: {len(v)} rows, median error {100 * statistics.median(v):+.1f} %, "
                  f"median |error| {100 * statistics.median(abs(x) for x in v):.1f} %")
        for key in sorted(by_cell):
            v = by_cell[key]
            print(f"    TP {key[0]} micro-batch {key[1]} {'PP' if key[2] else 'no PP'}: {len(v)} rows, "
                  f"median {100 * statistics.median(v):+.1f} %")


if __name__ == "__main__":
    main()
