#!/usr/bin/env python3
"""Stacked bar of each rank's step-time breakdown (the JSON's per_rank).

    breakdown.py --json REPORT.json --out breakdown.png

The categories partition the step, so every bar is as long as the step.
Ranks with the same figures share one bar ("8 ranks 0-7"): a 32-rank
pipeline shows its four stages, not 32 equal bars.
"""

import common

MAX_BARS = 16  # beyond this the labels crowd; ranks.csv keeps every rank


def draw(report, out):
    ranks = report["per_rank"]
    if not ranks:
        raise common.InputError("the report has no per_rank breakdown")
    # Figures equal to the microsecond, as the text report prints them.
    groups = common.group_ranks(
        ((r["rank"], r) for r in ranks),
        key=lambda r: tuple(round(r["categories_ms"][k], 3) for k in common.CATEGORY_KEYS))
    shown = common.spread(groups, MAX_BARS)
    step = report["step_time_ms"]

    fig = common.figure()
    ax = fig.add_subplot()
    labels = [common.rank_label(members) for members, _ in shown]
    y = range(len(shown))
    left = [0.0] * len(shown)
    for key, name, colour in common.CATEGORIES:
        widths = [g["categories_ms"][key] for _, g in shown]
        if max(widths) < common.NEGLIGIBLE_MS:
            continue  # keep the legend to the categories this run has
        mean = report["breakdown"]["categories_ms"][key]
        ax.barh(y, widths, left=left, color=colour, label=f"{name}: {mean:.3g} ms",
                height=0.7, edgecolor="white", linewidth=0.5)
        for i, w in enumerate(widths):
            if w > 0.07 * step:  # label only the segments wide enough to hold it
                ax.text(left[i] + w / 2, i, f"{w:.1f}", ha="center", va="center", fontsize=7)
        left = [a + b for a, b in zip(left, widths)]

    ax.set_yticks(list(y), labels)
    ax.set_ylim(common.bar_limits(len(shown))[::-1])  # rank 0 on top
    ax.set_xlabel("time within the step (ms)")
    ax.set_ylabel("rank (grouped when equal)")
    ax.set_xlim(0, max(left + [step]) * 1.02)
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), title="category: mean over ranks")
    note = "" if len(shown) == len(groups) else f", {len(shown)} of {len(groups)} rank groups shown"
    fig.suptitle(f"Step-time breakdown per rank (step {step:.2f} ms{note})", fontweight="bold")
    hidden = report["breakdown"]["overlapped_communication_ms"]
    ax.set_title(f"{common.run_title(report)}\ncommunication hidden under compute (not in the bars): "
                 f"{hidden:.3g} ms mean", fontsize=8)
    common.save(fig, out)


def body():
    args = common.parser(__doc__.splitlines()[0]).parse_args()
    draw(common.load_json(args.json, ["per_rank", "breakdown", "step_time_ms"]), args.out)


if __name__ == "__main__":
    common.main(body)
