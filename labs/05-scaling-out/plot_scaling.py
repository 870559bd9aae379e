#!/usr/bin/python3
"""Lab 5's chart: scaling efficiency and exposed communication against the
GPU count, one line per network, from `simctl sweep scaling.yaml --csv FILE`.

usage: /usr/bin/python3 labs/05-scaling-out/plot_scaling.py SWEEP.csv OUT.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def network_label(row):
    kind = row["system.links[0].kind"]
    kind = f"InfiniBand {kind[len('infiniband_'):].upper()}" if kind.startswith("infiniband_") else "Ethernet"
    return f"{kind} {row['system.links[0].bandwidth']}"


def main(csv_path, png_path):
    rows = [r for r in csv.DictReader(open(csv_path)) if r["status"] == "ok"]
    single = {network_label(r): float(r["samples_per_s"]) for r in rows if int(r["gpus"]) == 1}
    networks = list(dict.fromkeys(network_label(r) for r in rows))  # in the study's order
    fig, (eff_ax, comm_ax) = plt.subplots(1, 2, figsize=(11, 4.2))
    for net in networks:
        mine = sorted((r for r in rows if network_label(r) == net), key=lambda r: int(r["gpus"]))
        gpus = [int(r["gpus"]) for r in mine]
        efficiency = [100.0 * float(r["samples_per_s"]) / (g * single[net]) for r, g in zip(mine, gpus)]
        exposed = [100.0 * float(r["comm_data_ms"]) / float(r["step_time_ms"]) for r in mine]
        eff_ax.plot(gpus, efficiency, marker="o", label=net)
        comm_ax.plot(gpus, exposed, marker="o", label=net)
    for ax in (eff_ax, comm_ax):
        ax.set_xscale("log", base=2)
        ax.set_xticks([1, 8, 16, 32])
        ax.set_xticklabels(["1", "8\n(1 server)", "16\n(2)", "32\n(4)"])
        ax.set_xlabel("GPUs (servers)")
        ax.grid(alpha=0.3)
    eff_ax.set_ylabel("scaling efficiency (%)\nsamples/s over GPUs x one GPU's")
    eff_ax.set_ylim(0, 105)
    comm_ax.set_ylabel("exposed data-parallel communication\n(% of the step)")
    comm_ax.set_ylim(bottom=0)
    eff_ax.legend(fontsize=8, loc="lower left")
    fig.suptitle("ResNet-50 DDP on H100 servers with one NIC each: where the network starts to dominate")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
