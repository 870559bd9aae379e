#!/usr/bin/env python3
"""Roofline per device (log-log) with one rank's op groups placed on it.

    roofline.py --json ROOFLINE.json --out roofline.png

Reads what `simctl roofline CONFIG --json FILE` writes. Each device gets a
panel: the matrix roof (tensor cores, or a CPU's FMA rate, at the workload's
dtype) and the fp32 vector roof, both min(peak FLOP/s, intensity x peak
bandwidth); each op group sits at its arithmetic intensity and the FLOP/s
simctl's compute model attains, coloured by kind, shaped by what bounds it.
"""

import math

import common

KIND_COLOURS = {"gemm": "#1f77b4", "attention": "#9467bd", "elementwise": "#ff7f0e", "norm": "#2ca02c",
                "softmax": "#bcbd22", "embedding": "#8c564b", "optimizer": "#d62728", "other": "#7f7f7f"}
BOUND_MARKERS = {"compute": "o", "memory": "s", "launch": "^"}
LABELLED = 6  # the groups that take the most time get their name written


def roof(xs, peak, bandwidth):
    return [min(peak, x * bandwidth) for x in xs]


def draw_device(ax, device):
    groups = [g for g in device["groups"] if g["flops"] > 0 and g["bytes"] > 0 and g["time_s"] > 0]
    bw = device["peak_bandwidth_bytes_per_s"]
    lo = min([g["intensity_flop_per_byte"] for g in groups] + [0.05]) / 2
    hi = max([g["intensity_flop_per_byte"] for g in groups] + [device["matrix_ridge_flop_per_byte"]]) * 4
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    dtype = device["matrix_dtype"]
    ax.plot(xs, roof(xs, device["peak_matrix_flops_per_s"], bw), color="black", linewidth=1.5,
            label=f"{dtype} matrix roof (ridge {device['matrix_ridge_flop_per_byte']:.0f} FLOP/B)")
    ax.plot(xs, roof(xs, device["peak_vector_flops_per_s"], bw), color="black", linestyle="--", linewidth=1,
            label=f"fp32 vector roof (ridge {device['vector_ridge_flop_per_byte']:.0f} FLOP/B)")
    for g in groups:
        ax.scatter(g["intensity_flop_per_byte"], g["attained_flops_per_s"], s=28, zorder=3,
                   color=KIND_COLOURS.get(g["kind"], "#7f7f7f"), marker=BOUND_MARKERS.get(g["bound"], "x"),
                   edgecolor="black", linewidth=0.4)
    for g in sorted(groups, key=lambda g: -g["time_s"])[:LABELLED]:
        ax.annotate(g["name"], (g["intensity_flop_per_byte"], g["attained_flops_per_s"]), fontsize=6,
                    xytext=(3, 3), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    top = device["peak_matrix_flops_per_s"] * 3
    low = min([g["attained_flops_per_s"] for g in groups] + [top / 1e5]) / 3
    ax.set_ylim(low, top)
    ax.set_title(f"{device['name']} ({device['memory_kind']}, {bw / 1e9:.0f} GB/s)", fontsize=8)
    ax.set_xlabel("arithmetic intensity (FLOP/B)")
    ax.set_ylabel("attained (FLOP/s)")
    ax.grid(which="both", alpha=0.2)
    ax.legend(loc="lower right", fontsize=6)


def draw(data, out):
    devices = data["devices"]
    if not devices:
        raise common.InputError("the roofline JSON lists no devices")
    cols = min(3, len(devices))
    rows = math.ceil(len(devices) / cols)
    fig = common.figure()
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax, device in zip([a for row in axes for a in row][1:], devices[1:]):
        draw_device(ax, device)
    for ax in [a for row in axes for a in row][len(devices):]:
        ax.set_visible(False)
    kinds = sorted({g["kind"] for d in devices for g in d["groups"]})
    handles = [common.plt.Line2D([], [], linestyle="", marker="o", color=KIND_COLOURS.get(k, "#7f7f7f"), label=k)
               for k in kinds]
    handles += [common.plt.Line2D([], [], linestyle="", marker=m, color="grey", label=f"{b}-bound")
                for b, m in BOUND_MARKERS.items()]
    # Kinds and bounds once, in the first panel's empty upper left.
    first = axes[0][0]
    first.add_artist(first.legend(handles=handles, loc="upper left", fontsize=6, ncol=2))
    draw_device(first, devices[0])
    fig.suptitle(f"Roofline per device, op groups of rank {data['rank']} (FLOP/s against FLOP/B)\n{data['workload']}",
                 fontweight="bold", fontsize=10)
    common.save(fig, out)


def body():
    args = common.parser(__doc__.splitlines()[0]).parse_args()
    draw(common.load_json(args.json, ["devices", "workload", "rank"]), args.out)


if __name__ == "__main__":
    common.main(body)
