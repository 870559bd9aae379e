#!/usr/bin/env python3
"""Measures what a training step of a GPT-style transformer keeps in GPU
memory under PyTorch eager, and what running near the memory cap costs.

Run on a machine with one CUDA GPU and PyTorch:
    python3 measure_train_memory.py OUT_DIR [bf16|amp]
MODE bf16 (default) holds weights in bf16 and runs without autocast, as
PyTorch FSDP with a bf16 param_dtype computes (Composer's DEFAULT mixed
precision, torchtitan's FSDP2); amp keeps fp32 weights under bf16 autocast,
so the residual stream and LayerNorm run in fp32. The loss is fp32 on upcast
logits either way. Writes OUT_DIR/train_memory_MODE.json with three experiments:

1. activations: peak bytes allocated by forward + backward above the static
   state (fp32 weights, gradients, Adam states), for a model of L and 2L
   layers, so that the per-layer activation bytes are the difference / L and
   the rest (embedding, logits, fp32 loss) the intercept. Models: MPT-760M as
   llm-foundry runs it (LayerNorm, GELU MLP, tied embeddings, vocab 50368)
   and Llama 3 8B's layer (RMSNorm, SwiGLU, GQA, vocab 128256), under
   activation checkpointing none, full (torch.utils.checkpoint per block) and
   torchtitan's selective op policy (save matmul outputs but every second
   one, and the attention kernel's outputs).
2. pressure: MPT-760M, micro-batch 24 x 2048 tokens, gradient accumulation
   2 and an AdamW step, with the caching allocator capped
   (torch.cuda.set_per_process_memory_fraction) at decreasing multiples of
   the uncapped peak reserved memory: step time and the allocator's
   num_alloc_retries (cudaFree of every cached block, then cudaMalloc again)
   at each cap, until out of memory.
3. reserved_vs_allocated: the peak reserved / peak allocated ratio of every
   uncapped run (the caching allocator's fragmentation margin).
"""
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

GIB = 1024**3
DEV = "cuda"


class Norm(nn.Module):
    def __init__(self, d, rms):
        super().__init__()
        self.rms = rms
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        if self.rms:
            return F.rms_norm(x, (x.shape[-1],), self.weight)
        return F.layer_norm(x, (x.shape[-1],), self.weight)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, h, kv = c["hidden"], c["heads"], c["kv_heads"]
        self.h, self.kv, self.hd = h, kv, d // h
        self.n1, self.n2 = Norm(d, c["rms"]), Norm(d, c["rms"])
        self.qkv = nn.Linear(d, (h + 2 * kv) * self.hd, bias=False)
        self.out = nn.Linear(d, d, bias=False)
        self.swiglu = c["swiglu"]
        self.up = nn.Linear(d, c["ffn"] * (2 if self.swiglu else 1), bias=False)
        self.down = nn.Linear(c["ffn"], d, bias=False)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.n1(x)).split([self.h * self.hd, self.kv * self.hd, self.kv * self.hd], -1)
        q = q.view(b, s, self.h, self.hd).transpose(1, 2)
        k = k.view(b, s, self.kv, self.hd).transpose(1, 2)
        v = v.view(b, s, self.kv, self.hd).transpose(1, 2)
        if self.kv != self.h:  # as torchtitan's repeat_kv: keeps SDPA on the flash kernel
            k, v = (t.repeat_interleave(self.h // self.kv, dim=1) for t in (k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.out(a.transpose(1, 2).reshape(b, s, d))
        u = self.up(self.n2(x))
        if self.swiglu:
            g, u = u.chunk(2, -1)
            u = F.silu(g) * u
        else:
            u = F.gelu(u)
        return x + self.down(u)


def sac_policy():
    """torchtitan's op-level selective AC (torchtitan/models/llama/parallelize_llama.py
    _save_list): keep SDPA outputs and every second mm output, recompute the rest."""
    from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts
    ops = torch.ops.aten
    save = {ops.mm.default, ops._scaled_dot_product_flash_attention.default,
            ops._scaled_dot_product_efficient_attention.default,
            ops._scaled_dot_product_cudnn_attention.default, ops.max.default}

    def contexts():
        count = {"mm": 0}

        def policy(ctx, op, *args, **kwargs):
            if op == ops.mm.default:
                key = "recompute_mm" if ctx.is_recompute else "forward_mm"
                count.setdefault(key, 0)
                count[key] += 1
                if count[key] % 2 == 0:
                    return CheckpointPolicy.PREFER_RECOMPUTE
            return CheckpointPolicy.MUST_SAVE if op in save else CheckpointPolicy.PREFER_RECOMPUTE

        return create_selective_checkpoint_contexts(policy)

    return contexts


class Model(nn.Module):
    def __init__(self, c, layers, ac):
        super().__init__()
        self.emb = nn.Embedding(c["vocab"], c["hidden"])
        self.blocks = nn.ModuleList(Block(c) for _ in range(layers))
        self.norm = Norm(c["hidden"], c["rms"])
        self.head = None if c["tied"] else nn.Linear(c["hidden"], c["vocab"], bias=False)
        self.ac = ac
        self.sac = sac_policy() if ac == "selective_op" else None

    def forward(self, tokens):
        x = self.emb(tokens)
        for blk in self.blocks:
            if self.ac == "full":
                x = checkpoint(blk, x, use_reentrant=False)
            elif self.ac == "selective_op":
                x = checkpoint(blk, x, use_reentrant=False, context_fn=self.sac)
            else:
                x = blk(x)
        x = self.norm(x)
        w = self.emb.weight if self.head is None else self.head.weight
        return F.linear(x, w)


MODELS = {
    "mpt-760m": {"hidden": 1536, "heads": 12, "kv_heads": 12, "ffn": 6144, "vocab": 50368, "rms": False,
                 "swiglu": False, "tied": True, "layers": 24, "seq": 2048},
    "llama3-8b": {"hidden": 4096, "heads": 32, "kv_heads": 8, "ffn": 14336, "vocab": 128256, "rms": True,
                  "swiglu": True, "tied": False, "layers": 32, "seq": 8192},
}


def loss_of(model, tokens):
    if model.mode == "bf16":  # FSDP's bf16 param_dtype: weights and activations bf16, no autocast
        logits = model(tokens)
    else:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens)
    # Composer and torchtitan take the loss in fp32 on the upcast logits.
    return F.cross_entropy(logits.float().flatten(0, 1), tokens.flatten())


def static_state(model):
    """fp32 weights + gradients + Adam's two states, as a run would hold them."""
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    opt.step()  # allocates exp_avg / exp_avg_sq
    return opt


def build(c, layers, ac, mode):
    with torch.device(DEV):
        model = Model(c, layers, ac)
    if mode == "bf16":
        model.to(torch.bfloat16)
    model.mode = mode
    return model


def activation_run(name, layers, micro_batch, ac, mode):
    c = MODELS[name]
    torch.cuda.empty_cache()
    model = build(c, layers, ac, mode)
    opt = static_state(model)
    tokens = torch.randint(0, c["vocab"], (micro_batch, c["seq"]), device=DEV)
    loss_of(model, tokens).backward()  # warm-up (kernels, workspaces)
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    loss_of(model, tokens).backward()
    torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    peak, reserved = torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved()
    out = {"model": name, "mode": mode, "layers": layers, "micro_batch": micro_batch, "seq": c["seq"], "ac": ac,
           "static_bytes": base, "peak_allocated_bytes": peak, "peak_reserved_bytes": reserved,
           "activation_peak_bytes": peak - base, "fwd_bwd_s": round(seconds, 4)}
    del model, opt, tokens
    return out


def pressure_step(model, opt, batches):
    for tokens in batches:
        loss_of(model, tokens).backward()
    opt.step()
    opt.zero_grad(set_to_none=False)


def pressure_run(cap_fraction_of_total, steps, batches, model, opt):
    torch.cuda.empty_cache()
    torch.cuda.set_per_process_memory_fraction(cap_fraction_of_total)
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_stats().get("num_alloc_retries", 0)
    times = []
    for _ in range(steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        pressure_step(model, opt, batches)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    stats = torch.cuda.memory_stats()
    return {"step_s": [round(t, 4) for t in times], "median_step_s": round(statistics.median(times[1:]), 4),
            "alloc_retries_per_step": (stats.get("num_alloc_retries", 0) - before) / steps,
            "peak_allocated_bytes": torch.cuda.max_memory_allocated(),
            "peak_reserved_bytes": torch.cuda.max_memory_reserved()}


def pressure(result, mode):
    c = MODELS["mpt-760m"]
    total = torch.cuda.get_device_properties(0).total_memory
    model = build(c, c["layers"], "none", mode)
    opt = static_state(model)
    batches = [torch.randint(0, c["vocab"], (24, c["seq"]), device=DEV) for _ in range(2)]
    pressure_step(model, opt, batches)
    free = pressure_run(1.0, 4, batches, model, opt)
    result["pressure"] = {"model": "mpt-760m", "mode": mode, "micro_batch": 24, "accumulation": 2, "seq": c["seq"],
                          "optimizer": "torch.optim.AdamW(foreach=True)", "uncapped": free, "capped": []}
    save(result)
    for ratio in (1.0, 0.996, 0.992, 0.988, 0.984, 0.98, 0.976, 0.972, 0.968, 0.964, 0.96):
        cap = free["peak_reserved_bytes"] * ratio
        entry = {"cap_over_uncapped_peak_reserved": ratio, "cap_bytes": int(cap),
                 "cap_over_peak_allocated": round(cap / free["peak_allocated_bytes"], 4)}
        try:
            entry.update(pressure_run(cap / total, 3, batches, model, opt))
        except torch.OutOfMemoryError:
            entry["out_of_memory"] = True
            opt.zero_grad(set_to_none=False)
            result["pressure"]["capped"].append(entry)
            break
        result["pressure"]["capped"].append(entry)
        save(result)
    torch.cuda.set_per_process_memory_fraction(1.0)
    save(result)


OUT = None


def save(result):
    with open(os.path.join(OUT, f"train_memory_{result['meta']['mode']}.json"), "w") as f:
        json.dump(result, f, indent=1)


def main():
    global OUT
    OUT = sys.argv[1]
    props = torch.cuda.get_device_properties(0)
    mode = sys.argv[2] if len(sys.argv) > 2 else "bf16"
    result = {"meta": {"mode": mode, "gpu": props.name, "memory_gib": round(props.total_memory / GIB, 1),
                       "date": time.strftime("%Y-%m-%d"), "torch": torch.__version__, "cuda": torch.version.cuda,
                       "method": "eager PyTorch (mode bf16: bf16 weights, no autocast; mode amp: fp32 weights under bf16 "
                                 "autocast), fp32 cross-entropy on upcast logits, F.scaled_dot_product_attention "
                                 "(causal), AdamW foreach; peak memory "
                                 "from torch.cuda.max_memory_allocated/reserved after a warm-up step",
                       "models": MODELS},
              "activations": [], "errors": []}
    plan = [("mpt-760m", 2, 24, "none"), ("mpt-760m", 4, 24, "none"), ("mpt-760m", 4, 12, "none"),
            ("mpt-760m", 2, 24, "full"), ("mpt-760m", 4, 24, "full"),
            ("llama3-8b", 1, 2, "none"), ("llama3-8b", 2, 2, "none"),
            ("llama3-8b", 1, 2, "full"), ("llama3-8b", 2, 2, "full"),
            ("llama3-8b", 1, 2, "selective_op"), ("llama3-8b", 2, 2, "selective_op")]
    for name, layers, mb, ac in plan:
        try:
            result["activations"].append(activation_run(name, layers, mb, ac, mode))
        except Exception as e:  # keep going: one failed case must not lose the rest
            result["errors"].append(f"{name} L{layers} mb{mb} {ac}: {type(e).__name__}: {e}"[:400])
        torch.cuda.empty_cache()
        save(result)
    try:
        pressure(result, mode)
    except Exception as e:
        result["errors"].append(f"pressure: {type(e).__name__}: {e}"[:400])
    save(result)


if __name__ == "__main__":
    main()
