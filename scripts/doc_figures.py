#!/usr/bin/python3
"""Checks that the figures the docs and the labs quote for shipped configs are what this
commit's simctl prints, so a model change cannot leave a page describing
results simctl no longer gives.

  scripts/doc_figures.py [SIMCTL]

SIMCTL defaults to build/simctl. Each claim runs `simctl run CONFIG`, reads a
figure from the report with a pattern, formats it as the page writes it and
looks for that text in the page. Exits 1 listing every figure a page lacks,
with the value simctl printed; fix the page by hand (the prose around a
figure may need rereading too). It also runs `simctl lab run N` for every lab
and lists each key figure the lab's README does not quote, checks lab 1's
roofline rows against `simctl roofline`, and holds every `$ build/simctl ...`
block of the README to what that command prints. The study tables have their own generator
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
TTFT_P = r"time to first token\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s"
TPOT_P50 = r"time per output token\s+([\d.]+)\s"
COMPUTE = r"\n  compute\s+([\d.]+)\s"
EXPOSED_PERCENT = r"also (\d+)% exposed communication"
EXPOSED_CP = r"context parallel \(CP\)\s+([\d.]+)\s"


def seconds(written):
    """A step printed in ms, written in s."""
    return lambda ms: written.format(ms / 1000)


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
    ("docs/context-parallel.md", "configs/reference/nemo_llama31_8b_bf16_h100x8.yaml", [
        (STEP, seconds("| {:.3f} s/step |")), (EXPOSED_CP, "exposed CP {:.1f} ms of the 8B's")]),
    ("docs/context-parallel.md", "configs/reference/nemo_llama31_70b_bf16_h100x64.yaml", [
        (STEP, seconds("| {:.3f} s/step |")), (EXPOSED_CP, "{:.1f} ms of the 70B's")]),
    ("docs/inference.md", "configs/inference_llama3_70b_tp8.yaml", [
        (TTFT, "TTFT {:.0f} ms"), (TPOT, "TPOT {:.1f} ms")]),
    ("docs/inference.md", "configs/inference_llama3_8b_stream.yaml", [
        (TTFT_P, "TTFT p50/p90/p99 {:.0f}/{:.0f}/{:.0f} ms"), (TPOT_P50, "TPOT p50 {:.1f} ms")]),
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


# Key figures of `simctl lab run N` that a lab's README does not quote as printed, and why.
LAB_UNQUOTED = {
    5: {"8 GPUs, 1 server": "quoted as scaling efficiency",
        "32 GPUs, 25 GbE": "quoted as scaling efficiency",
        "32 GPUs, 100 GbE": "quoted as scaling efficiency",
        "32 GPUs, InfiniBand NDR": "quoted as scaling efficiency",
        "step, 32 GPUs over 25 GbE": "quoted as all-reduce per compute (the ddp.yaml claim above)",
        "exposed DP communication, 25 GbE": "quoted as a share of the step (the ddp.yaml claim above)"},
    6: {"PP 4, m 32, GPipe: step": "quoted as its bubble share"},
}

NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?!\d)")
# A figure printed in one unit may be quoted in the next larger one.
LARGER_UNIT = {"ns": 1e-3, "us": 1e-3, "ms": 1e-3}


def numbers(text):
    """Every number in a page: (value, decimals written, significant digits)."""
    for m in NUMBER.finditer(text):
        whole, decimals = m.group(1).replace(",", ""), m.group(2) or ""
        yield float(f"{whole}.{decimals}" if decimals else whole), len(decimals), len((whole + decimals).lstrip("0"))


def quotes(text, value, unit):
    """Whether the page writes `value` as printed or rounded (e.g. 2385.40 as 2,385), or in the next larger
    unit with three significant digits or more (154632.35 us as 154.6 ms). One-digit numbers must match
    exactly: any page has a 2 somewhere."""
    try:
        printed = float(value.replace(",", ""))
    except ValueError:
        return value in text
    candidates = [(printed, 2)] + ([(printed * LARGER_UNIT[unit], 3)] if unit in LARGER_UNIT else [])
    for number, decimals, significant in numbers(text):
        for target, min_significant in candidates:
            if significant < min_significant and number != target:
                continue
            if abs(number - target) <= 0.5 * 10 ** -decimals + 1e-9:
                return True
    return False


def lab_numbers():
    labs = []
    for name in sorted(os.listdir(os.path.join(ROOT, "labs"))):
        if os.path.exists(os.path.join(ROOT, "labs", name, "lab.yaml")):
            labs.append(int(name.split("-")[0]))
    return labs


def stale_lab_figures(simctl, lab):
    """A lab's README must quote every key figure `simctl lab run N` prints, but those LAB_UNQUOTED names."""
    folder = next(name for name in os.listdir(os.path.join(ROOT, "labs")) if name.startswith(f"{lab:02d}-"))
    page = f"labs/{folder}/README.md"
    text = open(os.path.join(ROOT, page)).read()
    report = subprocess.run([simctl, "lab", "run", str(lab)], check=True, capture_output=True, text=True).stdout
    rows = report.split("Key figures:\n", 1)[1].splitlines()[1:]
    sections = passages(text)
    missing = []
    for row in rows:
        found = re.match(r"  (.*?)\s{2,}(\S+)\s+(\S.*)$", row)
        if not found:
            continue
        figure, value, unit = found.groups()
        if figure not in LAB_UNQUOTED.get(lab, {}) and not quoted_near(sections, figure, value, unit):
            missing.append(f"{page} lacks {figure}: {value} {unit} (simctl lab run {lab})")
    return missing


# Words of a key figure's name too common to tie a line to it.
GENERIC_WORDS = {"step", "time", "the", "and", "with", "per", "over", "for"}


def label_words(figure):
    return {w for w in re.findall(r"[a-z][\w.+-]*", figure.lower()) if len(w) >= 3 and w not in GENERIC_WORDS}


def passages(text):
    """(context, body) pairs: each table row with its table's header as context, and each other paragraph
    as its own context."""
    out, paragraph, header, previous = [], [], "", ""
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            if re.match(r"^\|[\s:|-]+\|$", line):
                header = previous
            elif header:
                out.append((header + "\n" + line, line))
            previous = line
            continue
        header, previous = "", ""
        if line.strip():
            paragraph.append(line)
        elif paragraph:
            joined = "\n".join(paragraph)
            out.append((joined, joined))
            paragraph = []
    return out


def quoted_near(sections, figure, value, unit):
    """Whether a page's passages (passages()) quote `value` (as quotes() reads it) in a paragraph, or a table
    row under its header, that names the figure by one of its words: a number alone can match an unrelated one
    (lab 6's m = 4 step times once "matched" another table's MFU and peak)."""
    words = label_words(figure)
    return any(quotes(body, value, unit) for context, body in sections
               if not words or any(w in context.lower() for w in words))


def stale_shown_output(simctl):
    """A `$ build/simctl ...` line in a code block of the README is followed by what that command prints now,
    whole and verbatim (stdout; the search's timing line goes to stderr)."""
    text = open(os.path.join(ROOT, "README.md")).read()
    shown = re.findall(r"^\$ build/simctl ([^\n]*)\n(.*?)^```", text, re.S | re.M)
    if not shown:
        return ["README.md shows no `$ build/simctl` example"]
    stale = []
    for command, output in shown:
        printed = subprocess.run([simctl] + command.split(), check=True, capture_output=True, text=True,
                                 cwd=ROOT).stdout
        if output == printed:
            continue
        lines = zip(output.splitlines(), printed.splitlines())
        number = next((n for n, (old, new) in enumerate(lines, 1) if old != new), None)
        where = f"at its line {number}" if number else "in length"
        stale.append(f"README.md's output of 'simctl {command}' differs from what simctl prints {where}")
    return stale


ROOFLINE_PAGE = "labs/01-roofline/README.md"
ROOFLINE_DEVICES = ["epyc-7742", "rtx-3090", "h100-sxm"]


def stale_roofline_rows(simctl):
    """Lab 1 prints op-group rows of `simctl roofline` (EPYC 7742, RTX 3090, H100): each must be a row simctl
    prints now, spacing aside."""
    printed = set()
    for config in ("gpt_1p3b_h100.yaml", "resnet50_h100.yaml"):
        report = subprocess.run([simctl, "roofline", os.path.join(ROOT, "labs/01-roofline", config), "--device"] +
                                ROOFLINE_DEVICES, check=True, capture_output=True, text=True).stdout
        printed.update(" ".join(line.split()) for line in report.splitlines())
    quoted = [line for line in open(os.path.join(ROOT, ROOFLINE_PAGE)).read().splitlines()
              if re.match(r"^      [a-z][\w.]* +(gemm|norm|elementwise|optimizer) ", line)]
    missing = [f"{ROOFLINE_PAGE} quotes a row simctl roofline no longer prints: {' '.join(row.split())}"
               for row in quoted if " ".join(row.split()) not in printed]
    if not quoted:
        missing.append(f"{ROOFLINE_PAGE}: no roofline rows found to check")
    return missing


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
            values = [float(group) for group in found.groups()]
            quoted = written(*values) if callable(written) else written.format(*values)
            if quoted not in text:
                missing.append(f"{page} lacks '{quoted}' ({config} prints {', '.join(found.groups())})")
    labs = lab_numbers()
    for lab in labs:
        missing += stale_lab_figures(simctl, lab)
    missing += stale_roofline_rows(simctl)
    missing += stale_shown_output(simctl)
    for line in missing:
        print(line)
    if missing:
        print(f"{len(missing)} figure(s) stale: update the pages (and reread what they conclude)")
        return 1
    print(f"the docs' and labs' figures of {len(CLAIMS)} shipped configs, {len(labs)} labs' key figures and the README's "
          "examples are current")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
