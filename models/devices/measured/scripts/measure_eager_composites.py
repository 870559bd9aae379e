#!/usr/bin/env python3
"""Times the elementwise chains torchtitan's eager Llama runs where simctl
prices one fused kernel each, eager and under torch.compile, forward and
forward + backward, at the shape of its published 8B runs (local batch 2 x
seq 8192 = 16384 tokens, hidden 4096, 32 query and 8 KV heads of 128, FFN
14336, bf16):

  rmsnorm    torchtitan@9dec370 torchtitan/models/norms.py RMSNorm:
             (x.float() * rsqrt(x.float().pow(2).mean(-1) + eps)).type_as(x) * w
  rms_norm   torch.nn.functional.rms_norm (PyTorch's own kernel), for contrast
  rope       models/llama/model.py apply_rotary_emb: view_as_complex of the
             fp32 q and k, times freqs_cis, view_as_real, type_as
  swiglu     F.silu(a) * b (the MLP's activation, w1 and w3 outputs given)
  repeat_kv  expand + reshape of K and V to 32 heads, then the transposes and
             the output's .contiguous() around SDPA

Why: simctl prices these chains by their bytes at the memory roofline
(workloads/eager_op_chains.hpp), which puts torchtitan's compile-vs-eager gain
at 1.198x where it measured 1.157x, and its 8B runs are still 10-16 % fast
eager and compiled alike (docs/accuracy.md). These timings test the chains'
prices apart from the part's unknown peak.

Usage: python3 measure_eager_composites.py OUT_DIR   (writes eager_composites.json)
"""
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_gpu import time_ms  # noqa: E402  (median of calls between CUDA events)

T, H, HEADS, KV_HEADS, HEAD_DIM, FFN = 16384, 4096, 32, 8, 128, 14336
BATCH, SEQ = 2, 8192


def rmsnorm(x, w, eps=1e-6):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).type_as(x) * w


def rms_norm(x, w):
    return F.rms_norm(x, (x.shape[-1],), w)


def rope(q, k, freqs):
    q_ = torch.view_as_complex(q.float().reshape(*q.shape[:-1], -1, 2))
    k_ = torch.view_as_complex(k.float().reshape(*k.shape[:-1], -1, 2))
    f = freqs.view(1, q.shape[1], 1, q_.shape[-1])
    return torch.view_as_real(q_ * f).flatten(3).type_as(q), torch.view_as_real(k_ * f).flatten(3).type_as(k)


def swiglu(a, b):
    return F.silu(a) * b


def repeat_kv(k, v, o):
    rep = HEADS // KV_HEADS
    kk = k[:, :, :, None, :].expand(BATCH, SEQ, KV_HEADS, rep, HEAD_DIM).reshape(BATCH, SEQ, HEADS, HEAD_DIM)
    vv = v[:, :, :, None, :].expand(BATCH, SEQ, KV_HEADS, rep, HEAD_DIM).reshape(BATCH, SEQ, HEADS, HEAD_DIM)
    return kk.transpose(1, 2).contiguous(), vv.transpose(1, 2).contiguous(), o.transpose(1, 2).contiguous()


def inputs(name):
    d = dict(device="cuda", dtype=torch.bfloat16, requires_grad=True)
    if name in ("rmsnorm", "rms_norm"):
        return [torch.randn(BATCH, SEQ, H, **d), torch.ones(H, **d)]
    if name == "rope":
        angles = torch.rand(SEQ, HEAD_DIM // 2, device="cuda")
        return [torch.randn(BATCH, SEQ, HEADS, HEAD_DIM, **d), torch.randn(BATCH, SEQ, KV_HEADS, HEAD_DIM, **d),
                torch.polar(torch.ones_like(angles), angles)]
    if name == "swiglu":
        return [torch.randn(BATCH, SEQ, FFN, **d), torch.randn(BATCH, SEQ, FFN, **d)]
    return [torch.randn(BATCH, SEQ, KV_HEADS, HEAD_DIM, **d), torch.randn(BATCH, SEQ, KV_HEADS, HEAD_DIM, **d),
            torch.randn(BATCH, HEADS, SEQ, HEAD_DIM, **d)]


def measure(name, fn):
    args = inputs(name)
    outs = fn(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    grads = [torch.randn_like(o) for o in outs]

    def forward():
        with torch.no_grad():
            fn(*args)

    def forward_backward():
        for a in args:
            a.grad = None
        r = fn(*args)
        torch.autograd.backward(r if isinstance(r, tuple) else (r,), grads)

    return {"forward_ms": time_ms(forward), "forward_backward_ms": time_ms(forward_backward)}


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    chains = {"rmsnorm": rmsnorm, "rms_norm": rms_norm, "rope": rope, "swiglu": swiglu, "repeat_kv": repeat_kv}
    results = {}
    for name, fn in chains.items():
        results[name] = {"eager": measure(name, fn), "compiled": measure(name, torch.compile(fn))}
        print(name, results[name], flush=True)
    props = torch.cuda.get_device_properties(0)
    meta = {"gpu": props.name, "torch": torch.__version__, "cuda": torch.version.cuda,
            "date": time.strftime("%Y-%m-%d"), "tokens": T, "hidden": H, "heads": HEADS, "kv_heads": KV_HEADS,
            "ffn": FFN, "timing": "measure_gpu.time_ms: median of 20 calls between CUDA events, after 5 warm-up calls"}
    with open(os.path.join(out_dir, "eager_composites.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
