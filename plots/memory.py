#!/usr/bin/env python3
"""Stacked bar of each rank's estimated GPU memory, against its capacity.

    memory.py --json REPORT.json --out memory.png

Ranks with the same estimate share one bar, as in breakdown.py. simctl only
calls this when the report's `memory` entries are estimated.
"""

import common

MAX_BARS = 16
# The estimator's item names (workloads/memory_estimate.cpp); others get the rest of tab10.
ITEM_COLOURS = {"weights": "#1f77b4", "gradients": "#ff7f0e", "optimizer_states": "#2ca02c",
                "activations": "#d62728", "temporary": "#9467bd"}
SPARE_COLOURS = ["#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def draw(report, out):
    memory = [m for m in report["memory"] if m["estimated"]]
    if not memory:
        raise common.InputError("the report has no memory estimate (every memory[].estimated is false)")
    # Equal to the MiB: the estimate is no finer than that.
    groups = common.group_ranks(
        ((m["rank"], m) for m in memory),
        key=lambda m: (round(m["capacity_bytes"] / 2**20),) + tuple((i["name"], round(i["bytes"] / 2**20))
                                                                     for i in m["items"]))
    shown = common.spread(groups, MAX_BARS)
    names = list(dict.fromkeys(i["name"] for _, m in shown for i in m["items"]))
    spare = iter(SPARE_COLOURS * 4)
    colours = {n: ITEM_COLOURS.get(n) or next(spare) for n in names}

    capacity = [m["capacity_bytes"] / common.GIB for _, m in shown]
    used = [m["used_bytes"] / common.GIB for _, m in shown]
    top = max(capacity + used) * 1.12

    fig = common.figure()
    ax = fig.add_subplot()
    x = list(range(len(shown)))
    bottom, bars = [0.0] * len(shown), []
    for name in names:
        heights = [sum(i["bytes"] for i in m["items"] if i["name"] == name) / common.GIB for _, m in shown]
        if not any(heights):
            continue
        bars.append(ax.bar(x, heights, bottom=bottom, color=colours[name], label=name.replace("_", " "),
                           width=0.6, edgecolor="white", linewidth=0.5))
        for i, h in enumerate(heights):
            if h > 0.025 * top:  # only segments tall enough to hold their figure
                ax.text(i, bottom[i] + h / 2, f"{h:.1f}", ha="center", va="center", fontsize=7, color="white")
        bottom = [a + b for a, b in zip(bottom, heights)]

    line = {"color": "black", "linestyle": "--"}
    if len(set(capacity)) == 1:
        capacity_line = ax.axhline(capacity[0], label=f"GPU capacity ({capacity[0]:.0f} GiB)", **line)
    else:  # mixed GPUs: a capacity mark over each bar
        capacity_line = ax.hlines(capacity, [i - 0.4 for i in x], [i + 0.4 for i in x], label="GPU capacity", **line)
    for i, (_, m) in enumerate(shown):
        # Used and headroom over each bar; a plan that does not fit says so.
        free = m["headroom_bytes"] / common.GIB
        text = f"{bottom[i]:.1f} GiB\n{free:.1f} free" if free >= 0 else f"{bottom[i]:.1f} GiB\nOVER by {-free:.1f}"
        ax.text(i, bottom[i], text, ha="center", va="bottom", fontsize=8, color="black" if free >= 0 else "red")

    ax.set_xticks(x, [common.rank_label(members) for members, _ in shown], rotation=0 if len(shown) <= 6 else 30,
                  ha="center" if len(shown) <= 6 else "right")
    ax.set_xlim(common.bar_limits(len(shown)))
    ax.set_ylim(0, top)
    ax.set_xlabel("rank (grouped when equal)")
    ax.set_ylabel("GPU memory (GiB)")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    # The capacity line, then the items top of the stack first, as the bars read.
    ax.legend(handles=[capacity_line] + bars[::-1], loc="upper left", bbox_to_anchor=(1.01, 1),
              title="memory item (GiB)")
    note = "" if len(shown) == len(groups) else f", {len(shown)} of {len(groups)} rank groups shown"
    fig.suptitle(f"Estimated GPU memory per rank (GiB{note})", fontweight="bold")
    ax.set_title(common.run_title(report), fontsize=8)
    common.save(fig, out)


def body():
    args = common.parser(__doc__.splitlines()[0]).parse_args()
    draw(common.load_json(args.json, ["memory"]), args.out)


if __name__ == "__main__":
    common.main(body)
