#!/usr/bin/env python3
"""Times a single-GPU training step of MPT-760M (llm-foundry's shape) in plain
PyTorch, burst and sustained, with each fused-attention backend of SDPA.

Run on a machine with one CUDA GPU and PyTorch, with nvidia-smi logging clocks:
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu \
        --format=csv,noheader -lms 500 > OUT_DIR/clocks.csv &
    python3 measure_train_step.py OUT_DIR
A step is 2 micro-batches of 24 x 2048 tokens (gradient accumulation 2) and
an AdamW step: bf16 weights without autocast (as FSDP's bf16 param_dtype
computes), the loss in fp32 on upcast logits, AdamW foreach. For each
backend (default, flash = FlashAttention-2, cudnn): 2 warm-up steps, then
steps back to back for SECONDS (default 25); burst = median of the first 3
timed steps, sustained = median over the last 10 s. Writes
OUT_DIR/train_step.json.
"""
import json
import os
import statistics
import sys
import time

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_train_memory import MODELS, build, loss_of, static_state  # noqa: E402

BACKENDS = {"default": None, "flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}


def step(model, opt, batches):
    for tokens in batches:
        loss_of(model, tokens).backward()
    opt.step()
    opt.zero_grad(set_to_none=False)


def timed_steps(model, opt, batches, seconds):
    for _ in range(2):
        step(model, opt, batches)
    torch.cuda.synchronize()
    out, t0 = [], time.time()
    while time.time() - t0 < seconds:
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        step(model, opt, batches)
        e.record()
        e.synchronize()
        out.append([round(time.time() - t0, 2), s.elapsed_time(e) / 1e3])
    return out


def main():
    out_dir = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 25.0
    micro_batch = int(sys.argv[3]) if len(sys.argv) > 3 else 24
    accumulation = int(sys.argv[4]) if len(sys.argv) > 4 else 48 // micro_batch
    name = sys.argv[5] if len(sys.argv) > 5 else "mpt-760m"
    c = dict(MODELS[name])
    c["layers"] = int(sys.argv[6]) if len(sys.argv) > 6 else c["layers"]
    props = torch.cuda.get_device_properties(0)
    result = {"meta": {"gpu": props.name, "date": time.strftime("%Y-%m-%d"), "torch": torch.__version__,
                       "cuda": torch.version.cuda, "model": c, "name": name, "micro_batch": micro_batch,
                       "accumulation": accumulation,
                       "method": "bf16 weights, no autocast; fp32 loss on upcast logits; AdamW foreach; CUDA-event "
                                 "timed steps back to back after 2 warm-ups; burst = median of the first 3, "
                                 "sustained = median over the last 10 s"},
              "runs": [], "errors": []}
    model = build(c, c["layers"], "none", "bf16")
    opt = static_state(model)
    batches = [torch.randint(0, c["vocab"], (micro_batch, c["seq"]), device="cuda")
               for _ in range(accumulation)]
    for backend_name, backend in BACKENDS.items():
        try:
            if backend is None:
                steps = timed_steps(model, opt, batches, seconds)
            else:
                with sdpa_kernel([backend]):
                    steps = timed_steps(model, opt, batches, seconds)
            last = [t for at, t in steps if at >= steps[-1][0] - 10.0]
            result["runs"].append({"backend": backend_name, "steps": steps,
                                   "burst_s": round(statistics.median(t for _, t in steps[:3]), 4),
                                   "sustained_s": round(statistics.median(last), 4)})
        except Exception as e:
            result["errors"].append(f"{backend_name}: {type(e).__name__}: {e}"[:400])
        with open(os.path.join(out_dir, "train_step.json"), "w") as f:
            json.dump(result, f, indent=1)
        time.sleep(5)


if __name__ == "__main__":
    main()
