#!/usr/bin/env python3
"""Gantt chart of one step for a few ranks, from ops.csv.

    timeline.py --json REPORT.json --ops ops.csv [--ranks 0,3,7] --out timeline.png

One row per (rank, stream); ops are coloured by phase, alternate micro-batches
a shade lighter. A communication op's wait for its peers (start to ready) is
drawn hatched, and the compute stream's idle time is shaded, so pipeline
bubbles stand out as shaded gaps rather than white space.
"""

import re

from matplotlib.colors import to_rgb
from matplotlib.patches import Patch

import common

STREAMS = ["compute", "communication", "copy", "loader", "host"]  # the `stream` column's values
DEFAULT_RANKS = 8
WAIT_COLOUR, WAIT_EDGE = "#eeeeee", "#bdbdbd"  # light: the transfers on it must stand out
IDLE_COLOUR, IDLE_EDGE = "#fde0dd", "#f4a6a0"
MICRO_BATCH = re.compile(r"^mb(\d+)\.")


def lighter(colour):
    return tuple(0.55 * c + 0.45 for c in to_rgb(colour))


def odd_micro_batch(op):
    mb = MICRO_BATCH.match(op["name"])
    return bool(mb) and int(mb.group(1)) % 2 == 1


def op_colour(op):
    colour = common.PHASE_COLOURS.get(op["phase"], common.PHASE_COLOURS["other"])
    # Odd micro-batches lighter, so 1F1B's interleaving reads op by op.
    return lighter(colour) if odd_micro_batch(op) else colour


def idle_spans(ops, step):
    """The parts of [0, step] no op covers, as (start, width) pairs."""
    spans, t = [], 0.0
    for op in sorted(ops, key=lambda o: o["start_ms"]):
        if op["start_ms"] > t:
            spans.append((t, op["start_ms"] - t))
        t = max(t, op["end_ms"])
    if step > t:
        spans.append((t, step - t))
    return spans


def parse_ranks(text, available):
    if text is None:
        return common.spread(sorted(available), DEFAULT_RANKS)
    try:
        ranks = [int(r) for r in text.split(",") if r.strip()]
    except ValueError:
        raise common.InputError(f"--ranks wants comma-separated rank numbers, not '{text}'")
    if not ranks:
        raise common.InputError("--ranks names no rank")
    unknown = ",".join(str(r) for r in ranks if r not in available)
    if unknown:
        kept = sorted(available)  # `simctl run --trace-ranks` may have kept only some
        held = f"{kept[0]}-{kept[-1]}" if kept == list(range(kept[0], kept[-1] + 1)) else ",".join(map(str, kept))
        raise common.InputError(f"rank(s) {unknown} not in the ops table (it has ranks {held})")
    return ranks


def draw(report, ops, ranks, out):
    step = report["step_time_ms"]
    streams = [s for s in STREAMS if any(o["stream"] == s and o["rank"] in ranks for o in ops)]
    rows = [(r, s) for r in ranks for s in streams]
    by_row = {row: [] for row in rows}
    for op in ops:
        if (op["rank"], op["stream"]) in by_row and op["end_ms"] > op["start_ms"]:
            by_row[op["rank"], op["stream"]].append(op)

    fig = common.figure()
    ax = fig.add_subplot()
    phases, drawn = set(), set()
    min_width = step / 1500  # about a pixel: a 5 us data load still shows
    for y, row in enumerate(rows):
        row_ops = by_row[row]
        band = (y - 0.4, 0.8)
        if row[1] == "compute" and (idle := idle_spans(row_ops, step)):
            ax.broken_barh(idle, band, facecolors=IDLE_COLOUR, hatch="////", edgecolor=IDLE_EDGE, linewidth=0)
            drawn.add("idle")
        if waits := [(o["start_ms"], o["ready_ms"] - o["start_ms"]) for o in row_ops if o["ready_ms"] > o["start_ms"]]:
            ax.broken_barh(waits, band, facecolors=WAIT_COLOUR, hatch="....", edgecolor=WAIT_EDGE, linewidth=0)
            drawn.add("wait")
        work = [(o["ready_ms"], max(o["end_ms"] - o["ready_ms"], min_width)) for o in row_ops]
        # linewidth 0: thousands of sub-pixel ops would otherwise merge into their edges.
        ax.broken_barh(work, band, facecolors=[op_colour(o) for o in row_ops], linewidth=0)
        phases.update(o["phase"] for o in row_ops)
        if any(odd_micro_batch(o) for o in row_ops):
            drawn.add("odd")

    ax.set_yticks(range(len(rows)), [f"rank {r}  {s}" for r, s in rows], fontsize=8 if len(rows) <= 24 else 6)
    for y in range(len(streams), len(rows), len(streams)):
        ax.axhline(y - 0.5, color="black", linewidth=0.6)  # one band per rank
    step_line = ax.axvline(step, color="black", linestyle="--", linewidth=1, label=f"step end ({step:.2f} ms)")
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first rank on top
    ax.set_xlim(0, step * 1.01)
    ax.set_xlabel("time within the step (ms)")
    ax.set_ylabel("rank and stream")
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)

    handles = [Patch(color=c, label=p.replace("_", " ")) for p, c in common.PHASE_COLOURS.items() if p in phases]
    extras = {
        "odd": Patch(facecolor=lighter("#808080"), label="(odd micro-batches lighter)"),
        "wait": Patch(facecolor=WAIT_COLOUR, hatch="....", edgecolor=WAIT_EDGE, label="waiting for peers"),
        "idle": Patch(facecolor=IDLE_COLOUR, hatch="////", edgecolor=IDLE_EDGE,
                      label="compute idle (bubble, exposed\ncomm or waiting)"),
    }
    handles += [patch for key, patch in extras.items() if key in drawn]
    handles.append(step_line)
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), title="op phase")
    fig.suptitle(f"Timeline of one step, ranks {', '.join(map(str, ranks))}", fontweight="bold")
    ax.set_title(common.run_title(report), fontsize=8)
    common.save(fig, out)


def body():
    p = common.parser(__doc__.splitlines()[0])
    p.add_argument("--ops", required=True, help="ops.csv from `simctl run --csv DIR`")
    p.add_argument("--ranks", help="comma-separated ranks (default: 8 spread from first to last)")
    args = p.parse_args()
    report = common.load_json(args.json, ["step_time_ms"])
    ops = common.load_csv(args.ops, numeric=["rank", "start_ms", "ready_ms", "end_ms"],
                          text=["name", "phase", "stream"])
    if not ops:
        raise common.InputError(f"'{args.ops}' has no ops")
    for op in ops:
        op["rank"] = int(op["rank"])
    draw(report, ops, parse_ranks(args.ranks, {o["rank"] for o in ops}), args.out)


if __name__ == "__main__":
    common.main(body)
