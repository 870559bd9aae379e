#!/usr/bin/env python3
"""Heatmap of link utilisation over the topology's tiers, from links.csv.

    link_heatmap.py --json REPORT.json --links links.csv [--metric busy|bandwidth] --out link_heatmap.png

One row per tier ("gpu->nvswitch", "nic->leaf", ...: each direction its own
tier), one cell per link of the tier in links.csv order, coloured by the
share of the step the link was busy (or, with --metric bandwidth, by its
average bandwidth over its capacity).
"""

import math

from matplotlib import colormaps
from matplotlib.patches import Patch

import common

METRICS = {"busy": ("utilisation", "link busy time (% of the step)"),
           "bandwidth": ("bandwidth_utilisation", "average bandwidth (% of link capacity)")}
MAX_COLUMNS = 128  # wider tiers are folded: each cell then shows the busiest of several links
ANNOTATE_COLUMNS = 32  # print the % in the cells while they are this few
IDLE, NO_LINK = "#d9d9d9", "white"
FLOOR = 1e-9  # the colour scale's bottom: idle links fall under it and draw grey


def colour_scale_top(peak):
    """100 % when links come near it; else a round ceiling, so a fabric
    that is 3 % busy does not draw as one flat colour."""
    for top in (1, 2, 5, 10, 20, 50):
        if peak <= top:
            return top
    return 100


def percent(value):
    return "<0.1 %" if 0 < value < 0.05 else f"{value:.1f} %"


def draw(report, links, metric, out):
    column, label = METRICS[metric]
    tiers = {}
    for link in links:  # dicts keep the tiers in order of first appearance
        tiers.setdefault(link["tier"], []).append(100.0 * link[column])
    fold = math.ceil(max(len(v) for v in tiers.values()) / MAX_COLUMNS)
    rows = [[max(v[i:i + fold]) for i in range(0, len(v), fold)] for v in tiers.values()]
    width = max(len(r) for r in rows)
    # NaN pads the tiers with fewer links; they draw as blank cells.
    grid = [r + [math.nan] * (width - len(r)) for r in rows]
    top = colour_scale_top(max(max(v) for v in tiers.values()))

    fig = common.figure()
    ax = fig.add_subplot()
    cmap = colormaps["viridis"].copy()
    cmap.set_bad(NO_LINK)
    cmap.set_under(IDLE)  # links that carried nothing stand apart from lightly used ones
    image = ax.imshow(grid, aspect="auto", interpolation="nearest", cmap=cmap, vmin=FLOOR, vmax=top)
    if width <= ANNOTATE_COLUMNS and len(rows) <= 24:
        for y, row in enumerate(rows):
            for x, value in enumerate(row):
                if value == 0:
                    continue
                text = f"{value:.0f}" if value >= 1 else "<1"
                ax.text(x, y, text, ha="center", va="center", fontsize=6,
                        color="white" if value < 0.6 * top else "black")
    ax.set_yticks(range(len(rows)),
                  [f"{t}  ({len(v)} links, max {percent(max(v))})" for t, v in tiers.items()])
    ax.set_xlabel("link within the tier, in links.csv order" + (f" (each cell: busiest of {fold})" if fold > 1 else ""))
    ax.set_ylabel("tier (source part -> target part)")
    ax.set_xticks(range(0, width, max(1, width // 16)))
    if width <= 64:  # outline the cells while they are wide enough to leave room inside
        ax.set_xticks([x - 0.5 for x in range(width + 1)], minor=True)
        ax.set_yticks([y - 0.5 for y in range(len(rows) + 1)], minor=True)
        ax.grid(which="minor", color="#e0e0e0", linewidth=0.5)
        ax.tick_params(which="minor", length=0)
    bar = fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    ticks = [top * i / 5 for i in range(6)]
    bar.set_ticks([FLOOR] + ticks[1:], labels=[f"{t:g}" for t in ticks])  # the scale starts just above 0
    bar.set_label(label)
    ax.legend(handles=[Patch(facecolor=IDLE, edgecolor="#a0a0a0", label="idle link (0 %)"),
                       Patch(facecolor=NO_LINK, edgecolor="#a0a0a0", label="no link (tier has fewer links)")],
              loc="upper left", bbox_to_anchor=(0, -0.07), ncol=2, fontsize=8, frameon=False)
    fig.suptitle(f"Link utilisation by tier: {label}, step {report['step_time_ms']:.2f} ms", fontweight="bold")
    ax.set_title(common.run_title(report), fontsize=8)
    common.save(fig, out)


def body():
    p = common.parser(__doc__.splitlines()[0])
    p.add_argument("--links", required=True, help="links.csv from `simctl run --csv DIR`")
    p.add_argument("--metric", choices=sorted(METRICS), default="busy", help="what colours the cells (default busy)")
    args = p.parse_args()
    report = common.load_json(args.json, ["step_time_ms"])
    links = common.load_csv(args.links, numeric=[METRICS[args.metric][0]], text=["tier"])
    if not links:
        raise common.InputError(f"'{args.links}' lists no links")
    draw(report, links, args.metric, args.out)


if __name__ == "__main__":
    common.main(body)
