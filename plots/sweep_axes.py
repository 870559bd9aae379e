#!/usr/bin/env python3
"""Step time and throughput of a sweep's points against each of its axes.

    sweep_axes.py --json SWEEP.json --out sweep_axes.png

SWEEP.json is what `simctl sweep --json` writes. One column of panels per
axis (axes zipped in the study share a column): step time on top,
throughput below. With one other axis, each of its values is a series;
with none, one series; with more, each value shows the best over the
others. Points that are invalid or out of memory are left out; where a
series has no valid point at a value, a marker at the foot of the panel
says why.
"""

import common  # first: it sets the headless backend, or says matplotlib is missing
import sweep_common as sc
from matplotlib import transforms

MAX_SERIES = 6
SERIES_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
FAILED_MARKERS = {"out_of_memory": "x", "invalid": "+"}


def series_for(sweep, groups, column):
    """(legend title, [(label, {x value: [points]})]) for the panel of groups[column]:
    a series per combination of the other axes' values when there are few,
    else the best over them."""
    group = groups[column]
    others = [g for i, g in enumerate(groups) if i != column]

    def other_value(p):
        return ", ".join(sc.value_label(tuple(p["axes"][f] for f in g)) for g in others)

    combinations = list(dict.fromkeys(other_value(p) for p in sweep["points"]))
    if not others:
        title, label_of = None, lambda p: "simulated"
    elif len(combinations) <= MAX_SERIES:
        title, label_of = ", ".join(sc.group_label(g) for g in others), other_value
    else:
        title, label_of = None, lambda p: "best over the other axes"
    by_series = {}
    for p in sweep["points"]:
        by_series.setdefault(label_of(p), {}).setdefault(tuple(p["axes"][f] for f in group), []).append(p)
    return title, list(by_series.items())


def best(points, key, highest):
    """The ok point with the best figure under `key`, or None."""
    ok = [p for p in points if p["status"] == "ok" and key(p) is not None]
    if not ok:
        return None
    return (max if highest else min)(ok, key=key)


def failure(points):
    """The status to mark where no point ran: out of memory before invalid."""
    statuses = {p["status"] for p in points}
    if "ok" in statuses or not statuses:
        return None
    return "out_of_memory" if "out_of_memory" in statuses else "invalid"


def draw_panel(ax, columns, values, series, key, highest, divisor, ylabel, ideal=False):
    """One figure of merit against one axis; returns the statuses it marked."""
    foot = transforms.blended_transform_factory(ax.transData, ax.transAxes)
    marked = set()
    shown = []
    for index, ((label, by_x), colour) in enumerate(zip(series, SERIES_COLOURS)):
        # Failure markers of different series side by side, not on top of each other.
        nudge = (index - (len(series) - 1) / 2) * 0.08
        xs, ys, chosen = [], [], []
        for x, value in enumerate(values):
            points = by_x.get(value, [])
            p = best(points, key, highest)
            if p is None:
                status = failure(points)
                if status:
                    ax.plot([x + nudge], [0.03], marker=FAILED_MARKERS[status], color=colour, markersize=9,
                            markeredgewidth=2, linestyle="none", transform=foot, clip_on=False)
                    marked.add(status)
                continue
            xs.append(x)
            ys.append(key(p) / divisor)
            chosen.append(p)
        ax.plot(xs, ys, marker="o", color=colour, label=label, linewidth=1.5, markersize=5)
        shown.extend(ys)
        gpus = [p["gpus"] for p in chosen]
        if ideal and len(chosen) > 1 and all(a < b for a, b in zip(gpus, gpus[1:])):
            # Linear in the GPU count from the series' first point: how far
            # the sweep falls short of perfect scaling. Only where the axis
            # adds GPUs of one machine (not where it swaps machines).
            first = chosen[0]
            linear = [ys[0] * p["gpus"] / first["gpus"] for p in chosen]
            ax.plot(xs, linear, color=colour, linestyle=":", linewidth=1.2, alpha=0.8,
                    label="linear in GPUs from the first point" if len(series) == 1 else None)
            shown.extend(linear)
            if len(series) == 1:  # each point's share of linear scaling; the first is 100% by definition
                for x, y, lin in list(zip(xs, ys, linear))[1:]:
                    ax.annotate(f"{100 * y / lin:.0f}%", (x, y), textcoords="offset points", xytext=(0, 7),
                                ha="center", fontsize=7, color="#333333")
    # A zipped group's values one above the other, in the order its label names them.
    labels = ["\n".join(sc.short_value(part) for part in v) for v in values]
    # Smaller, then slanted, when the widest line would run into its
    # neighbour's (a character is about 0.75 of the font size in pixels).
    room_px = 0.75 * common.FIGSIZE[0] * common.DPI / columns / len(values)
    widest = max(len(line) for label in labels for line in label.split("\n"))
    size = next((pt for pt in (9, 7) if widest * 0.75 * pt <= room_px), 7)
    slanted = widest * 0.75 * size > room_px
    ax.set_xticks(range(len(values)), labels, fontsize=size, rotation=20 if slanted else 0,
                  ha="right" if slanted else "center")
    ax.set_xlim(-0.5, len(values) - 0.5)
    ax.set_ylim(0, max(shown, default=1.0) * 1.15 or 1.0)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.set_axisbelow(True)
    return marked


def draw_key(key, panel, marked, title):
    """The panel's legend, with the failure marks it shows, in a row of its
    own under the panels (not over the lines or the ticks)."""
    handles, labels = panel.get_legend_handles_labels()
    for status in ("out_of_memory", "invalid"):
        if status in marked:
            handles.append(key.plot([], [], marker=FAILED_MARKERS[status], color="#555555", linestyle="none",
                                    markeredgewidth=2)[0])
            labels.append(f"no valid point: {status.replace('_', ' ')}")
    key.axis("off")
    key.legend(handles, labels, loc="upper center", fontsize=7, title=title, title_fontsize=7,
               ncols=2 if len(handles) > 3 else 1)


def draw(sweep, out):
    groups = sc.axis_groups(sweep)
    if not groups or not sweep["points"]:
        raise common.InputError("the sweep has no axes or no points to draw")
    kind = sc.throughput_kind(sweep["points"])
    ok = [p for p in sweep["points"] if p["status"] == "ok"]
    t_div, t_unit = sc.scaled([sc.throughput(p, kind) for p in ok], f"{kind}/s")

    fig = common.figure()
    grid = fig.add_gridspec(3, len(groups), height_ratios=[5, 5, 2])
    for column, group in enumerate(groups):
        values = sc.group_values(sweep, group)
        legend_title, series = series_for(sweep, groups, column)
        top = fig.add_subplot(grid[0, column])
        bottom = fig.add_subplot(grid[1, column], sharex=top)
        marked = draw_panel(top, len(groups), values, series, lambda p: p["step_time_ms"], False, 1.0,
                            "step time (ms)" if column == 0 else "")
        marked |= draw_panel(bottom, len(groups), values, series, lambda p: sc.throughput(p, kind), True, t_div,
                             f"throughput ({t_unit})" if column == 0 else "", ideal="system" not in group)
        top.set_title(f"against {sc.group_label(group)}")
        top.tick_params(labelbottom=False)
        bottom.set_xlabel(sc.group_label(group))
        if column == len(groups) - 1 or len(series) > 1:
            draw_key(fig.add_subplot(grid[2, column]), bottom, marked, legend_title)
    fig.suptitle(f"{sc.title(sweep)}: step time and throughput by axis", fontweight="bold")
    objective = f", objective: {sweep['objective']}" if sweep.get("objective") else ""
    fig.supxlabel(f"{sc.status_summary(sweep['points'])}{objective}; invalid and out-of-memory points are left out",
                  fontsize=8, color="#555555")
    common.save(fig, out)


def body():
    args = common.parser(__doc__.splitlines()[0]).parse_args()
    draw(sc.load_sweep(args.json), args.out)


if __name__ == "__main__":
    common.main(body)
