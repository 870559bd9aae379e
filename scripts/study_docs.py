#!/usr/bin/python3
"""Regenerates the shipped studies' tables in docs/studies.md and the fabric
study's printout in README.md from `simctl sweep`, so that what the docs say
the studies answer is what this commit simulates.

  scripts/study_docs.py [--check] [--plots] [SIMCTL]

SIMCTL defaults to build/simctl. --check rewrites nothing: it exits 1 naming
each stale block (ctest runs it so). --plots also redraws the charts under
docs/images/studies/. The prose around the tables states conclusions drawn
from them; reread it when a table changes.
"""
import json
import re
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Per study: the file, the docs paragraph its table follows, the axis columns
# shown (zipped partners of a shown axis are left out), and its charts
# (sweep --plot's name -> docs/images/studies/ name).
STUDIES = [
    {
        "file": "dgx_h100_node_scaling.yaml",
        "marker": "**Node scaling** (`dgx_h100_node_scaling.yaml`)",
        "columns": ["system.nodes[0].count"],
        "charts": {"sweep_axes.png": "node_scaling_axes.png"},
    },
    {
        "file": "fabric_ndr_hdr_oversubscribed.yaml",
        "marker": "**Fabric** (`fabric_ndr_hdr_oversubscribed.yaml`)",
        "columns": ["system.fabric.link", "system.fabric.oversubscription", "system.fabric.rail_optimised",
                    "system.fabric.routing"],
        "charts": {"sweep_axes.png": "fabric_axes.png"},
        "readme": True,
    },
    {
        "file": "h100_a100_gh200_equal_budget.yaml",
        "marker": "**Equal budget** (`h100_a100_gh200_equal_budget.yaml`",
        "columns": ["system", "workload.micro_batch", "workload.activation_recompute"],
        "charts": {"sweep_pareto_cost.png": "equal_budget_pareto_cost.png",
                   "sweep_pareto_energy.png": "equal_budget_pareto_energy.png"},
    },
    {
        "file": "gpu_generations.yaml",
        "marker": "**Generations** (`gpu_generations.yaml`)",
        "columns": ["system"],
        "charts": {},
    },
]

STATUS = {"ok": "ok", "out_of_memory": "out of memory", "invalid": "invalid"}


def cell(value, digits):
    return "" if value is None else f"{value:.{digits}f}"


def table(study, report):
    head = ["point"] + [f"`{c}`" for c in study["columns"]] + [
        "step [ms]", "tokens/s", "MFU [%]", "USD / M tokens", "owned USD / M tokens", "kWh / M tokens", "status"]
    ran = sorted((p for p in report["points"] if p["status"] == "ok"), key=lambda p: -p["tokens_per_s"])
    rest = [p for p in report["points"] if p["status"] != "ok"]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    for p in ran + rest:
        row = [str(p["point"])] + [p["axes"][c] for c in study["columns"]] + [
            cell(p.get("step_time_ms"), 0), cell(p.get("tokens_per_s"), 0), cell(p.get("mfu_percent"), 1),
            cell(p.get("cost_per_million_tokens"), 3), cell(p.get("owned_cost_per_million_tokens"), 3),
            cell(p.get("energy_per_million_tokens_kwh"), 3),
            STATUS.get(p["status"], p["status"])]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def replace_table(lines, marker, new):
    start = next(i for i, l in enumerate(lines) if l.startswith(marker))
    first = next(i for i in range(start, len(lines)) if lines[i].startswith("| point |"))
    end = first
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return lines[:first] + new + lines[end:]


def printout(text):
    """The sweep's terminal table without its last column (bottleneck), as the README shows it."""
    lines = text.rstrip("\n").split("\n")
    header = next(i for i, l in enumerate(lines) if re.match(r"#\s+point", l))
    cut = lines[header].index("  bottleneck")
    table_end = next(i for i in range(header, len(lines)) if not lines[i].strip())
    return [l[:cut].rstrip() if header <= i < table_end else l for i, l in enumerate(lines)]


def replace_printout(lines, new):
    # The printout's first line is the study's title and its point count,
    # which an added axis changes: match the title.
    title = new[0].split(":")[0] + ":"
    first = next(i for i, l in enumerate(lines) if l.startswith(title))
    end = next(i for i in range(first, len(lines)) if lines[i].startswith("```"))
    return lines[:first] + new + lines[end:]


def main(argv):
    check = "--check" in argv
    plots = "--plots" in argv
    args = [a for a in argv if not a.startswith("--")]
    simctl = args[0] if args else os.path.join(ROOT, "build", "simctl")
    docs_path, readme_path = os.path.join(ROOT, "docs", "studies.md"), os.path.join(ROOT, "README.md")
    docs = open(docs_path).read().split("\n")
    readme = open(readme_path).read().split("\n")
    with tempfile.TemporaryDirectory() as tmp:
        for study in STUDIES:
            json_file, plot_dir = os.path.join(tmp, "sweep.json"), os.path.join(tmp, "plots")
            command = [simctl, "sweep", os.path.join(ROOT, "configs", "studies", study["file"]), "--json", json_file]
            if plots:
                command += ["--plot", plot_dir]
            out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            report = json.load(open(json_file))
            docs = replace_table(docs, study["marker"], table(study, report))
            if study.get("readme"):
                # The README shows the printout as `simctl sweep` writes it, before the files it names.
                shown = [l for l in out.split("\n") if not l.startswith("wrote ")]
                readme = replace_printout(readme, printout("\n".join(shown)))
            if plots:
                for made, name in study["charts"].items():
                    os.replace(os.path.join(plot_dir, made), os.path.join(ROOT, "docs", "images", "studies", name))
    stale = []
    for path, lines in ((docs_path, docs), (readme_path, readme)):
        text = "\n".join(lines)
        if open(path).read() != text:
            stale.append(os.path.relpath(path, ROOT))
            if not check:
                open(path, "w").write(text)
    if check and stale:
        print("stale study tables in " + ", ".join(stale) + ": run scripts/study_docs.py (then reread the prose)")
        return 1
    print(("updated " + ", ".join(stale)) if stale else "study tables are current")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
