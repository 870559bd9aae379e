#!/usr/bin/python3
"""Step time of an MLPerf Training run from its result logs.

Each result file's MLLOG block_start/block_stop pairs give a block's duration
and its samples; a step is global_batch samples. The first block holds warm-up and is dropped. Prints each file's
median and the median over all later blocks of all files, in ms per step,
the arithmetic `workloads/measured/reference_points.yaml` cites.

With --until-step N only blocks that end by step N count (NeMo 25.09 logs
the step): an FP4 run that heals in FP8 from step N is timed in FP4.

usage: scripts/mlperf_step_time.py [--until-step N] RESULT_FILE...
"""
import json
import statistics
import sys


def block_samples(counts):
    """Samples in each block from the (start, stop) samples_count pairs.

    Three conventions occur: NeMo 25.09's callbacks log the block's own
    sample count at both ends (1536, 384, 384, ...); the PyTorch reference
    (AMD's submissions) logs the running total at each end; NeMo 25.04 logs
    the running total at the block's start at both ends, so a block's samples
    are the next block's start count less its own (its last block is
    dropped)."""
    starts = [a for a, _ in counts]
    cumulative = starts[0] == 0 and all(b > a for a, b in zip(starts, starts[1:]))
    if not cumulative:
        return [b for _, b in counts]
    out = []
    for i, (a, b) in enumerate(counts):
        if b > a:
            out.append(b - a)
        elif i + 1 < len(counts):
            out.append(starts[i + 1] - a)
    return out


def blocks(path, until_step=None):
    batch = None
    start = None
    times, counts = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            at = line.find(":::MLLOG ")
            if at < 0:
                continue
            try:
                rec = json.loads(line[at + 9:])
            except json.JSONDecodeError:
                continue
            key = rec.get("key")
            if key == "global_batch_size":
                batch = int(rec["value"])
            elif key == "block_start":
                start = (rec["time_ms"], rec["metadata"].get("samples_count", 0))
            elif key == "block_stop" and start is not None:
                if until_step is not None and rec["metadata"].get("step", 0) > until_step:
                    start = None
                    continue
                times.append(rec["time_ms"] - start[0])
                counts.append((start[1], rec["metadata"]["samples_count"]))
                start = None
    if batch is None:
        sys.exit(f"{path}: no global_batch_size in the log")
    if not counts:
        return []
    samples = block_samples(counts)
    return [ms / (n / batch) for ms, n in list(zip(times, samples))[1:]]


def main(paths, until_step=None):
    every = []
    for path in paths:
        steps = blocks(path, until_step)
        if not steps:
            print(f"{path}: fewer than two blocks, skipped")
            continue
        every += steps
        print(f"{path}: {len(steps)} later blocks, median {statistics.median(steps):.1f} ms/step")
    if not every:
        sys.exit("no later blocks in any file")
    print(f"median over {len(every)} blocks: {statistics.median(every):.1f} ms/step")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    args = sys.argv[1:]
    until = None
    if args[0] == "--until-step":
        until, args = int(args[1]), args[2:]
    main(args, until)
