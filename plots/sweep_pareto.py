#!/usr/bin/env python3
"""A sweep's Pareto front: throughput against cost (or energy) per million tokens.

    sweep_pareto.py --json SWEEP.json --against cost|energy --out FILE.png

SWEEP.json is what `simctl sweep --json` writes. Each valid point is a dot
at its cost (or energy) per million tokens and its throughput; the points
no other point beats on both (more throughput for no more cost) form the
front, joined and labelled with their axis values. Dominated points are
grey. For models without tokens, per million samples and samples/s.
Invalid and out-of-memory points have no figures and are only counted.
"""

import common  # first: it sets the headless backend, or says matplotlib is missing
import sweep_common as sc
from matplotlib import transforms
from pareto import pareto_front

FRONT_COLOUR = "#d62728"
DOMINATED_COLOUR = "#b0b0b0"
MAX_LABELS = 12  # labels beyond this many overlap; the rest are numbered


def per_million(point, kind, against):
    """(figure, unit) per million tokens (or samples) of the point, or None."""
    if against == "cost":
        if kind == "tokens":
            return point.get("cost_per_million_tokens")
        per_step = point.get("cost_per_step")
    else:
        if kind == "tokens":
            return point.get("energy_per_million_tokens_kwh")
        per_step = point.get("energy_per_step_kj")
        per_step = per_step / 3600.0 if per_step is not None else None  # kJ -> kWh
    # Samples per step = samples/s x step time; the report gives no per-sample figure.
    samples_per_step = point["samples_per_s"] * point["step_time_ms"] / 1000.0
    if per_step is None or samples_per_step <= 0:
        return None
    return per_step / samples_per_step * 1e6


def point_label(sweep, groups, point):
    """The point's values of the axes that vary, one group per line."""
    lines = []
    for group in groups:
        if len(sc.group_values(sweep, group)) > 1:
            value = tuple(point["axes"][f] for f in group)
            lines.append(f"{sc.group_label(group)} = {sc.value_label(value)}")
    return "\n".join(lines) or f"point {point['point']}"


# Where a label may go, nearest first: (dx, dy) in points from its dot, and
# the label's alignment there.
LABEL_SPOTS = [(8, 5, "left", "bottom"), (8, -5, "left", "top"), (-8, 5, "right", "bottom"),
               (-8, -5, "right", "top"), (10, 24, "left", "bottom"), (10, -24, "left", "top"),
               (-10, 24, "right", "bottom"), (-10, -24, "right", "top"), (0, 44, "center", "bottom"),
               (0, -44, "center", "top")]


def annotate(ax, anchor, text, spot, leader):
    """A front point's label at `spot`, with a line to its dot if asked."""
    dx, dy, ha, va = spot
    label = ax.annotate(text, anchor, textcoords="offset points", xytext=(dx, dy), ha=ha, va=va, fontsize=7,
                        multialignment="left", bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": FRONT_COLOUR, "alpha": 0.9},
                        arrowprops={"arrowstyle": "-", "color": FRONT_COLOUR, "linewidth": 0.6} if leader else None,
                        zorder=4)
    label.set_in_layout(False)  # the layout is already fixed; labels must not move it
    return label


def place_labels(fig, ax, anchors, texts, dots):
    """Labels the front's dots, each at the first spot where it covers no
    dot, no label placed before it and nothing outside the axes (else at
    the nearest spot). Positions are measured after the layout is done."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    taken = [transforms.Bbox.from_bounds(px - 5, py - 5, 10, 10) for px, py in ax.transData.transform(dots)]
    legend = ax.get_legend()
    if legend:
        taken.append(legend.get_window_extent(renderer))
    for anchor, text in zip(anchors, texts):
        chosen, chosen_box = 0, None
        for n, spot in enumerate(LABEL_SPOTS):
            # Measured without its leader line, which always touches the dot.
            trial = annotate(ax, anchor, text, spot, leader=False)
            box = trial.get_window_extent(renderer)
            trial.remove()
            if n == 0:
                chosen_box = box  # nowhere free: the nearest spot
            fits = inside.contains(box.x0, box.y0) and inside.contains(box.x1, box.y1)
            if fits and not any(box.overlaps(t) for t in taken):
                chosen, chosen_box = n, box
                break
        annotate(ax, anchor, text, LABEL_SPOTS[chosen], leader=chosen >= 4)
        taken.append(chosen_box)


def x_label(sweep, kind, against):
    unit = "tokens" if kind == "tokens" else "samples"
    if against == "energy":
        return f"energy per million {unit} (kWh, at the wall: GPUs, hosts, PUE)"
    currencies = sorted({p["currency"] for p in sweep["points"] if p["status"] == "ok" and p.get("currency")})
    currency = currencies[0] if len(currencies) == 1 else "mixed currencies"
    return f"cost per million {unit} ({currency})"


def draw_front(ax, drawn, divisor, what):
    """The dots, grey when dominated, and the front as a staircase: the most
    throughput to be had for at most a given cost holds until the next
    front point. Returns the front's indices into `drawn`, cheapest first."""
    front = pareto_front([(x, y) for x, y, _ in drawn])
    on_front = set(front)
    dominated = [d for i, d in enumerate(drawn) if i not in on_front]
    if dominated:
        ax.scatter([x for x, _, _ in dominated], [y / divisor for _, y, _ in dominated], color=DOMINATED_COLOUR,
                   s=30, label=f"dominated: another point has more throughput for no more {what} ({len(dominated)})",
                   zorder=2)
    ax.plot([drawn[i][0] for i in front], [drawn[i][1] / divisor for i in front], color=FRONT_COLOUR, marker="o",
            markersize=7, linewidth=1.5, drawstyle="steps-post",
            label=f"Pareto front ({len(front)}): most throughput for the {what}", zorder=3)
    xs = [x for x, _, _ in drawn]
    span = max(xs) - min(xs) or max(xs) or 1.0
    ax.set_xlim(max(0.0, min(xs) - 0.15 * span), max(xs) + 0.3 * span)  # room for the labels
    ax.set_ylim(0, max(y for _, y, _ in drawn) / divisor * 1.15)
    ax.legend(loc="lower right")
    return front


def draw(sweep, against, out):
    kind = sc.throughput_kind(sweep["points"])
    groups = sc.axis_groups(sweep)
    drawn = []  # (x, throughput, point)
    for p in sweep["points"]:
        if p["status"] != "ok":
            continue
        x, y = per_million(p, kind, against), sc.throughput(p, kind)
        if x is not None and y is not None:
            drawn.append((x, y, p))
    fig = common.figure()
    ax = fig.add_subplot()
    divisor, unit = sc.scaled([y for _, y, _ in drawn], f"{kind}/s")
    what = "cost" if against == "cost" else "energy"
    if not drawn:
        ax.axis("off")
        reason = "no point has a price (no `pricing` in the config and none in the catalogue for its GPU)" \
            if against == "cost" else "no point has an energy figure"
        ax.text(0.5, 0.5, f"No Pareto front: {reason}.", ha="center", va="center", fontsize=10, color="#555555")
    else:
        front = draw_front(ax, drawn, divisor, what)
    ax.set_xlabel(x_label(sweep, kind, against))
    ax.set_ylabel(f"throughput ({unit})")
    ax.grid(alpha=0.3)
    ax.set_axisbelow(True)
    fig.suptitle(f"{sc.title(sweep)}: throughput against {what}", fontweight="bold")
    left_out = len(sweep["points"]) - len(drawn)
    note = f"; {left_out} without figures left out (invalid, out of memory or unpriced)" if left_out else ""
    ax.set_title(f"{sc.status_summary(sweep['points'])}{note}. Up and to the left is better.", fontsize=8)
    if drawn:  # last: the labels go where the finished layout leaves room
        labels = [point_label(sweep, groups, drawn[i][2]) if n < MAX_LABELS else f"#{drawn[i][2]['point']}"
                  for n, i in enumerate(front)]
        place_labels(fig, ax, [(drawn[i][0], drawn[i][1] / divisor) for i in front], labels,
                     [(x, y / divisor) for x, y, _ in drawn])
    common.save(fig, out)


def body():
    p = common.parser(__doc__.splitlines()[0])
    p.add_argument("--against", required=True, choices=["cost", "energy"],
                   help="the x axis: cost or energy per million tokens")
    args = p.parse_args()
    draw(sc.load_sweep(args.json), args.against, args.out)


if __name__ == "__main__":
    common.main(body)
