#!/usr/bin/env python3
"""Compares several runs: step time by main category, and cost where priced.

    compare.py --out compare.png RUN1.json RUN2.json ... [--labels a,b,...]

Each RUN is a `simctl run --json` report. The top chart stacks each run's
mean step-time breakdown; the bottom ones show the cost per step and per
million tokens of the runs whose config has a `pricing` section.
"""

import os

import common


def labels_for(args):
    if args.labels is None:
        names = [os.path.splitext(os.path.basename(p))[0] for p in args.runs]
        # Same file name in several folders: number them rather than guess.
        return names if len(set(names)) == len(names) else [f"{i + 1}: {n}" for i, n in enumerate(names)]
    labels = args.labels.split(",")
    if len(labels) != len(args.runs):
        raise common.InputError(f"--labels names {len(labels)} runs but {len(args.runs)} reports were given")
    return labels


def throughput_label(run):
    # tokens_per_s is null for models without tokens (MLP, CNN).
    if run.get("tokens_per_s") is None:
        return f"{run['samples_per_s']:.1f} samples/s"
    return f"{run['tokens_per_s'] / 1e3:.1f} k tokens/s"


def draw_steps(ax, runs, labels):
    x = list(range(len(runs)))
    bottom = [0.0] * len(runs)
    for name, keys, colour in common.MAIN_CATEGORIES:
        heights = [sum(r["breakdown"]["categories_ms"][k] for k in keys) for r in runs]
        if max(heights) < common.NEGLIGIBLE_MS:
            continue
        ax.bar(x, heights, bottom=bottom, color=colour, label=name, width=0.6, edgecolor="white", linewidth=0.5)
        bottom = [a + b for a, b in zip(bottom, heights)]
    for i, r in enumerate(runs):
        ax.text(i, bottom[i], f"{r['step_time_ms']:.1f} ms", ha="center", va="bottom", fontsize=8)
    # Throughput under each name: runs with other batch sizes differ in step time for that alone.
    ax.set_xticks(x, [f"{n}\n{throughput_label(r)}" for n, r in zip(labels, runs)])
    ax.set_xlim(common.bar_limits(len(runs), 3))
    ax.set_ylim(0, max(bottom) * 1.12)
    ax.set_ylabel("step time (ms), mean over ranks")
    ax.set_title("Step time by category")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), title="category")


def draw_cost(ax, runs, labels, field, what):
    x = list(range(len(runs)))
    costs = [r["cost"][field] if r.get("cost") else None for r in runs]
    ax.bar(x, [c or 0.0 for c in costs], color="#17becf", width=0.6, label=what)
    for i, (c, r) in enumerate(zip(costs, runs)):
        unpriced = "no tokens" if r.get("cost") else "not priced"
        ax.text(i, c or 0.0, f"{c:.4g} {r['cost']['currency']}" if c is not None else unpriced,
                ha="center", va="bottom", fontsize=8)
    currencies = {r["cost"]["currency"] for r in runs if r.get("cost")}
    ax.set_xticks(x, labels)
    ax.set_xlim(common.bar_limits(len(runs), 3))
    ax.set_ylim(0, max(c or 0.0 for c in costs) * 1.2)
    ax.set_ylabel(f"{what} ({currencies.pop() if len(currencies) == 1 else 'mixed currencies'})")
    ax.set_title(what.capitalize())
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(loc="upper left", fontsize=7)


def body():
    p = common.parser(__doc__.splitlines()[0], json_input=False)
    p.add_argument("runs", nargs="+", metavar="RUN.json", help="reports from `simctl run --json`")
    p.add_argument("--labels", help="comma-separated names for the runs (default: the file names)")
    args = p.parse_args()
    runs = [common.load_json(path, ["breakdown", "step_time_ms"]) for path in args.runs]
    labels = labels_for(args)

    priced = any(r.get("cost") for r in runs)
    fig = common.figure()
    grid = fig.add_gridspec(2, 2, height_ratios=[3, 2] if priced else [6, 1])
    draw_steps(fig.add_subplot(grid[0, :]), runs, labels)
    if priced:
        draw_cost(fig.add_subplot(grid[1, 0]), runs, labels, "per_step", "cost per step")
        draw_cost(fig.add_subplot(grid[1, 1]), runs, labels, "per_million_tokens", "cost per million tokens")
    else:
        note = fig.add_subplot(grid[1, :])
        note.axis("off")
        note.text(0.5, 0.5, "No cost: none of these runs' configs has a `pricing` section.",
                  ha="center", va="center", fontsize=10, color="#555555")
    fig.suptitle(f"Comparison of {len(runs)} runs", fontweight="bold")
    common.save(fig, args.out)


if __name__ == "__main__":
    common.main(body)
