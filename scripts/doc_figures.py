#!/usr/bin/python3
"""Checks that the figures the docs and the labs quote for shipped configs are what this
commit's simctl prints, so a model change cannot leave a page describing
results simctl no longer gives.

  scripts/doc_figures.py [SIMCTL]

SIMCTL defaults to build/simctl. Each claim runs `simctl run CONFIG`, reads a
figure from the report with a pattern, formats it as the page writes it and
looks for that text in the page. Exits 1 listing every figure a page lacks,
with the value simctl printed; fix the page by hand (the prose around a
figure may need rereading too). The study tables have their own generator
(scripts/study_docs.py); docs/accuracy.md and docs/network.md are checked by
the C++ accuracy tests.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

STEP = r"Step time\s+([\d.]+) ms"
TOKENS = r"Throughput\s+[\d.]+ samples/s, (\d+) tokens/s"
TFLOPS = r"Model FLOPs\s+([\d.]+) TFLOP/s per GPU"
TTFT = r"time to first token \(TTFT\)\s+([\d.]+) ms"
TPOT = r"time per output token \(TPOT\)\s+([\d.]+) ms"
FITS = r"largest batch that fits in memory\s+(\d+)"
COMPUTE = r"\n  compute\s+([\d.]+)\s"
EXPOSED_PERCENT = r"also (\d+)% exposed communication"


def used_gib(ranks):
    return r"\n  " + re.escape(ranks) + r"\s+([\d.]+)\s"


# (page, config, [(pattern, how the page writes the figure)])
CLAIMS = [
    ("docs/finetune.md", "configs/dgx_h100_x8_llama2_7b_lora.yaml", [
        (STEP, "{:,.1f} ms"), (TOKENS, "{:,.0f} tokens/s"), (TFLOPS, "{:.1f} model TFLOP/s per GPU"),
        (used_gib("ranks 0-7"), "{:.1f} GiB (")]),
    ("docs/finetune.md", "configs/h100_x1_llama2_70b_qlora.yaml", [
        (STEP, "{:,.0f} ms"), (TOKENS, "{:,.0f} tokens/s"), (TFLOPS, "{:.1f} model TFLOP/s"),
        (used_gib("rank 0"), "{:.1f} GiB (")]),
    ("docs/fp8.md", "configs/dgx_h100_x8_llama2_7b_fp8.yaml", [
        (STEP, "step of {:.1f} ms"), (TOKENS, "{:,.0f} tokens/s"), (TFLOPS, "({:.1f} model TFLOP/s/GPU)")]),
    ("docs/inference.md", "configs/inference_llama3_70b_tp8.yaml", [
        (TTFT, "TTFT {:.0f} ms"), (TPOT, "TPOT {:.1f} ms")]),
    ("docs/inference.md", "configs/inference_llama3_8b_h100.yaml", [
        (TTFT, "TTFT {:.0f} ms"), (TPOT, "TPOT {:.1f} ms"), (FITS, "{:.0f} sequences fit")]),
    # The labs' findings: a course hands these numbers to students.
    ("labs/03-host-to-device/README.md", "labs/03-host-to-device/resnet50_1gpu.yaml", [(STEP, "| {:.2f} |")]),
    ("labs/04-dataparallel-vs-ddp/README.md", "labs/04-dataparallel-vs-ddp/single.yaml", [(STEP, "| 1 GPU | {:.3f} |")]),
    ("labs/04-dataparallel-vs-ddp/README.md", "labs/04-dataparallel-vs-ddp/data_parallel.yaml", [
        (STEP, "| DataParallel x8 | {:.3f} |")]),
    ("labs/04-dataparallel-vs-ddp/README.md", "labs/04-dataparallel-vs-ddp/ddp.yaml", [(STEP, "| DDP x8 | {:.3f} |")]),
    ("labs/05-scaling-out/README.md", "labs/05-scaling-out/ddp.yaml", [
        (COMPUTE, "per {:.1f} ms of compute"), (EXPOSED_PERCENT, "also {:.0f}% exposed communication")]),
    ("labs/06-model-pipeline-hybrid/README.md", "labs/06-model-pipeline-hybrid/tp_in_node.yaml", [
        (STEP, "| inside one node (NVSwitch) | {:.1f} |")]),
    ("labs/06-model-pipeline-hybrid/README.md", "labs/06-model-pipeline-hybrid/tp_across_nodes.yaml", [
        (STEP, "| across 4 nodes (NDR) | {:.1f} |")]),
] + [("labs/07-gh200-offload/README.md", f"labs/07-gh200-offload/{name}.yaml", [(STEP, "| {:.1f} |")])
     for name in ("llama3_8b_gh200_offload", "llama3_8b_gh200_pcie_offload", "llama3_8b_h100_pcie_offload",
                  "llama3_8b_gh200_offload_all", "llama3_8b_gh200_pcie_offload_all", "gpt_1p3b_gh200",
                  "gpt_1p3b_gh200_offload")]


def main(argv):
    simctl = argv[0] if argv else os.path.join(ROOT, "build", "simctl")
    missing = []
    for page, config, figures in CLAIMS:
        text = open(os.path.join(ROOT, page)).read()
        report = subprocess.run([simctl, "run", os.path.join(ROOT, config)], check=True, capture_output=True,
                                text=True).stdout
        for pattern, written in figures:
            found = re.search(pattern, report)
            if not found:
                missing.append(f"{config}: the report has no line matching {pattern!r}")
                continue
            quoted = written.format(float(found.group(1)))
            if quoted not in text:
                missing.append(f"{page} lacks '{quoted}' ({config} prints {found.group(1)})")
    for line in missing:
        print(line)
    if missing:
        print(f"{len(missing)} figure(s) stale: update the pages (and reread what they conclude)")
        return 1
    print(f"the docs' and labs' figures of {len(CLAIMS)} shipped configs are current")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
