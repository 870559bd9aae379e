"""Shared helpers for simctl's chart scripts (run by `simctl run --plot`).

Each script reads the files `simctl run` writes (--json, rendered by
sim/report/render_json.cpp; --csv, by sim/report/render_csv.cpp) and draws
one PNG. Only the standard library and Debian's python3-matplotlib are used.
"""

import argparse
import csv
import gzip
import json
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")  # headless: simctl runs these without a display
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(f"{os.path.basename(sys.argv[0])}: error: needs matplotlib (Debian: apt install python3-matplotlib)")

# 12 x 7 inches at 100 dpi: 1200 x 700 px, the size every chart uses.
FIGSIZE = (12, 7)
DPI = 100
MS = "ms"
GIB = float(1 << 30)
# Below a nanosecond (the CSV tables' resolution) a category is rounding noise, not worth a legend entry.
NEGLIGIBLE_MS = 1e-6

plt.rcParams.update({
    "svg.hashsalt": "simctl",  # no random ids, should anyone switch to SVG
    "font.size": 9,
    "axes.titlesize": 11,
    "legend.fontsize": 8,
})

# The step-time categories of sim/report/categories.hpp, in its order (the
# JSON's `categories_ms` keys): label and colour. Compute is green/blue,
# exposed communication warm, copies purple/brown, time lost grey.
CATEGORIES = [
    ("compute_bound", "compute (compute-bound)", "#2ca02c"),
    ("compute_memory_bound", "compute (memory-bound)", "#98df8a"),
    ("compute_launch_bound", "compute (launch-bound)", "#17becf"),
    ("optimizer", "optimizer", "#1f77b4"),
    ("comm_data", "exposed comm: DP", "#d62728"),
    ("comm_tensor", "exposed comm: TP", "#ff7f0e"),
    ("comm_pipeline", "exposed comm: PP", "#e377c2"),
    ("comm_expert", "exposed comm: EP", "#bcbd22"),
    ("comm_context", "exposed comm: CP", "#aec7e8"),
    ("comm_other", "exposed comm: other", "#ff9896"),
    ("data_loading", "data loading", "#9467bd"),
    ("host_copy", "host copies", "#8c564b"),
    ("pipeline_bubble", "pipeline bubble", "#7f7f7f"),
    ("waiting", "idle / waiting", "#c7c7c7"),
]
CATEGORY_KEYS = [key for key, _, _ in CATEGORIES]

# Coarser groups of those categories, for charts comparing whole runs.
MAIN_CATEGORIES = [
    ("compute", ["compute_bound", "compute_memory_bound", "compute_launch_bound"], "#2ca02c"),
    ("optimizer", ["optimizer"], "#1f77b4"),
    ("exposed communication", ["comm_data", "comm_tensor", "comm_pipeline", "comm_expert", "comm_context", "comm_other"], "#d62728"),
    ("data loading + host copies", ["data_loading", "host_copy"], "#9467bd"),
    ("pipeline bubble", ["pipeline_bubble"], "#7f7f7f"),
    ("idle / waiting", ["waiting"], "#c7c7c7"),
]

# Op phases (OpPhase in workloads/trace.hpp, the `phase` column of ops.csv).
PHASE_COLOURS = {
    "forward": "#1f77b4",
    "backward": "#ff7f0e",
    "optimizer": "#2ca02c",
    "gradient_sync": "#d62728",
    "data_loading": "#9467bd",
    "host_copy": "#8c564b",
    "other": "#7f7f7f",
}


class InputError(Exception):
    """An input file is missing or not what simctl writes."""


def fail(message):
    """One line on stderr, naming the script, then exit 1."""
    print(f"{os.path.basename(sys.argv[0])}: error: {message}", file=sys.stderr)
    sys.exit(1)


class _Parser(argparse.ArgumentParser):
    # argparse prints the whole usage on a bad argument; keep it to one line.
    def error(self, message):
        fail(message)


def parser(description, json_input=True):
    """An argument parser with --out (and --json unless told otherwise)."""
    p = _Parser(description=description)
    if json_input:
        p.add_argument("--json", required=True, help="the report `simctl run --json FILE` wrote")
    p.add_argument("--out", required=True, help="the PNG to write")
    return p


def main(body):
    """Runs `body`, turning bad input into one line on stderr and exit 1."""
    try:
        body()
    except InputError as e:
        fail(str(e))
    except KeyError as e:
        # A field missing deep in the data: not what the renderer writes
        # (or the report's schema moved on).
        fail(f"input is not what simctl writes: no field {e}")
    except (TypeError, ValueError, IndexError, AttributeError) as e:
        fail(f"input is not what simctl writes: {type(e).__name__}: {e}")


def load_json(path, keys=()):
    """The parsed report; `keys` are top-level fields the caller needs."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise InputError(f"cannot read '{path}': {e.strerror}")
    except json.JSONDecodeError as e:
        raise InputError(f"'{path}' is not valid JSON: {e}")
    if not isinstance(data, dict):
        raise InputError(f"'{path}' is not a simctl report (no top-level object)")
    missing = [k for k in keys if k not in data]
    if missing:
        raise InputError(f"'{path}' is not a simctl run report (missing {', '.join(missing)})")
    return data


def load_csv(path, numeric=(), text=()):
    """The rows of a CSV table as dicts, `numeric` columns as floats."""
    try:
        opener = gzip.open if str(path).endswith(".gz") else open  # simctl run --csv-gz
        with opener(path, "rt", newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            missing = [c for c in (*numeric, *text) if c not in header]
            if missing:
                raise InputError(f"'{path}' lacks column(s) {', '.join(missing)}")
            rows = []
            for line, row in enumerate(reader, start=2):
                try:
                    for c in numeric:
                        row[c] = float(row[c])
                except (TypeError, ValueError):
                    raise InputError(f"'{path}' line {line}: column {c} is not a number")
                rows.append(row)
    except OSError as e:
        raise InputError(f"cannot read '{path}': {e.strerror}")
    return rows


def run_title(report):
    """A subtitle naming the run: workload on system."""
    workload, system = report.get("workload", ""), report.get("system", "")
    return f"{workload}\non {system}" if system else workload


def rank_label(ranks, limit=28):
    """Ranks as compact ranges ('0-7,16-23'); long lists are cut short."""
    ranks = sorted(ranks)
    runs = [[ranks[0], ranks[0]]]
    for r in ranks[1:]:
        if r == runs[-1][1] + 1:
            runs[-1][1] = r
        else:
            runs.append([r, r])
    text = ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
    if len(text) > limit:
        text = text[: limit - 1].rsplit(",", 1)[0] + ",…"
    return f"rank {text}" if len(ranks) == 1 else f"ranks {text} ({len(ranks)})"


def group_ranks(items, key):
    """Ranks whose key is equal, in order of first rank: [(ranks, item)]."""
    groups = {}
    for rank, item in items:
        groups.setdefault(key(item), ([], item))[0].append(rank)
    return sorted(groups.values(), key=lambda g: g[0][0])


def spread(items, count):
    """At most `count` items spread evenly from first to last (as simctl's
    spread_ranks does), so both ends of a pipeline stay in view."""
    if len(items) <= count:
        return list(items)
    return [items[i * (len(items) - 1) // (count - 1)] for i in range(count)]


def bar_limits(count, room=4):
    """Axis limits centring `count` bars in space for at least `room`, so a
    single bar is not drawn as wide as the whole plot."""
    pad = (max(count, room) - count) / 2 + 0.5
    return -pad, count - 1 + pad


def figure(**kwargs):
    return plt.figure(figsize=FIGSIZE, dpi=DPI, layout="constrained", **kwargs)


def save(fig, path):
    """Writes the PNG with stable bytes: no 'Software' (version) metadata."""
    try:
        fig.savefig(path, dpi=DPI, metadata={"Software": None})
    except OSError as e:
        raise InputError(f"cannot write '{path}': {e.strerror}")
    finally:
        plt.close(fig)
