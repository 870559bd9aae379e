#!/usr/bin/env python3
"""Measures the memory-bound kernels of a training step and a step's phases.

Run on a machine with one CUDA GPU and PyTorch:
    python3 measure_kernels.py OUT_DIR
It writes OUT_DIR/<gpu>_kernels_<date>.json with:
  elementwise  layer norm, GELU, softmax, dropout, residual add, cross-entropy
               over a vocabulary, embedding lookup: forward and backward times
               and the bytes each must move at least (reads + writes)
  optimizer    torch.optim.AdamW step (fused, foreach, and for-loop) and
               gradient clipping over N fp32 parameters in layer-sized tensors
  phases       forward, backward and optimizer time of a small GPT training
               step (the model of measure_gpu.py), each timed on its own
  launch       an empty-ish kernel's time (launch overhead floor)
Median of timed repetitions after warm-ups, CUDA events, random normal data.
"""
import datetime
import os
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from measure_gpu import Gpt, time_ms, write_results  # noqa: E402


def entry(results, name, shape, dtype, bytes_min, fwd_ms, bwd_ms=None):
    e = {"kind": "elementwise", "op": name, "shape": list(shape), "dtype": dtype, "bytes_fwd_min": bytes_min, "fwd_ms": round(fwd_ms, 5)}
    e["fwd_gb_per_s"] = round(bytes_min / fwd_ms / 1e6, 1)
    if bwd_ms is not None:
        e["bwd_ms"] = round(bwd_ms, 5)
    results.append(e)


def fwd_bwd(fn, x):
    x = x.detach().requires_grad_(True)
    fwd = time_ms(lambda: fn(x))
    y = fn(x)
    g = torch.randn_like(y)

    def both():
        x.grad = None
        fn(x).backward(g)

    return fwd, max(time_ms(both) - fwd, 0.0)


def measure_elementwise(results):
    bf = torch.bfloat16
    for tokens, hidden in ((8192, 768), (8192, 2048), (8192, 4096), (16384, 8192)):
        x = torch.randn(tokens, hidden, device="cuda", dtype=bf)
        ln = torch.nn.LayerNorm(hidden, device="cuda", dtype=bf)
        n = tokens * hidden * 2
        entry(results, "layer_norm", x.shape, "bf16", 2 * n, *fwd_bwd(ln, x))
        xf = torch.randn(tokens, 4 * hidden, device="cuda", dtype=bf)
        entry(results, "gelu_tanh", xf.shape, "bf16", 2 * 4 * n, *fwd_bwd(lambda t: F.gelu(t, approximate="tanh"), xf))
        entry(results, "dropout_0.1", x.shape, "bf16", 2 * n, *fwd_bwd(lambda t: F.dropout(t, 0.1, True), x))
        y = torch.randn_like(x)
        entry(results, "residual_add", x.shape, "bf16", 3 * n, time_ms(lambda: x + y))
        del x, xf, y
    for batch_heads, seq in ((96, 1024), (64, 2048)):
        s = torch.randn(batch_heads, seq, seq, device="cuda", dtype=torch.bfloat16)
        n = s.numel() * 2
        entry(results, "softmax", s.shape, "bf16", 2 * n, *fwd_bwd(lambda t: torch.softmax(t, -1), s))
        del s
    for tokens, vocab in ((8192, 50304), (8192, 128256)):
        logits = torch.randn(tokens, vocab, device="cuda", dtype=torch.bfloat16)
        target = torch.randint(0, vocab, (tokens,), device="cuda")
        n = logits.numel()
        entry(results, "cross_entropy_fp32", logits.shape, "bf16->fp32", n * (2 + 4), *fwd_bwd(lambda t: F.cross_entropy(t.float(), target), logits))
        del logits
    for tokens, hidden, vocab in ((8192, 2048, 50304),):
        emb = torch.nn.Embedding(vocab, hidden, device="cuda", dtype=torch.bfloat16)
        ids = torch.randint(0, vocab, (tokens,), device="cuda")
        entry(results, "embedding", (tokens, hidden), "bf16", 2 * tokens * hidden * 2, time_ms(lambda: emb(ids)))
    torch.cuda.empty_cache()


def measure_optimizer(results):
    for params_m, layer in ((125, 768), (350, 1024), (1300, 2048)):
        count = params_m * 1_000_000
        per = 4 * layer * layer
        tensors = [torch.nn.Parameter(torch.randn(per, device="cuda")) for _ in range(count // per)]
        for p in tensors:
            p.grad = torch.randn_like(p)
        total = sum(p.numel() for p in tensors)
        for impl in ("fused", "foreach", "for_loop"):
            kwargs = {"fused": True} if impl == "fused" else {"foreach": impl == "foreach"}
            opt = torch.optim.AdamW(tensors, lr=1e-4, **kwargs)
            ms = time_ms(opt.step, reps=10, warmup=2)
            # Adam reads param, grad, m, v and writes param, m, v: 7 fp32 words
            results.append(
                {"kind": "optimizer", "op": f"adamw_{impl}", "parameters": total, "tensors": len(tensors), "time_ms": round(ms, 4), "gb_per_s_at_28_bytes_per_param": round(28 * total / ms / 1e6, 1)}
            )
            del opt
        ms = time_ms(lambda: torch.nn.utils.clip_grad_norm_(tensors, 1.0), reps=10, warmup=2)
        results.append({"kind": "optimizer", "op": "clip_grad_norm", "parameters": total, "tensors": len(tensors), "time_ms": round(ms, 4)})
        ms = time_ms(lambda: [p.grad.zero_() for p in tensors], reps=10, warmup=2)
        results.append({"kind": "optimizer", "op": "zero_grad", "parameters": total, "tensors": len(tensors), "time_ms": round(ms, 4)})
        del tensors
        torch.cuda.empty_cache()


def measure_phases(results):
    for layers, hidden, heads, seq, batch in ((12, 768, 12, 1024, 8), (24, 2048, 16, 2048, 4)):
        vocab = 50304
        model = Gpt(layers, hidden, heads, vocab, seq).cuda()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        tokens = torch.randint(0, vocab, (batch, seq), device="cuda")

        def forward():
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = model(tokens)
            return F.cross_entropy(logits.float().view(-1, vocab), tokens.view(-1))

        fwd_ms = time_ms(lambda: forward(), reps=10, warmup=3)

        def fwd_bwd():
            forward().backward()

        fwd_bwd_ms = time_ms(fwd_bwd, reps=10, warmup=3)
        opt_ms = time_ms(opt.step, reps=10, warmup=2)
        results.append(
            {
                "kind": "phases",
                "model": {"layers": layers, "hidden": hidden, "heads": heads, "seq_len": seq, "vocab": vocab, "parameters": sum(p.numel() for p in model.parameters())},
                "micro_batch": batch,
                "forward_ms": round(fwd_ms, 3),
                "backward_ms": round(fwd_bwd_ms - fwd_ms, 3),
                "optimizer_fused_adamw_ms": round(opt_ms, 3),
            }
        )
        del model, opt
        torch.cuda.empty_cache()


def measure_launch(results):
    x = torch.zeros(1, device="cuda")
    n = 1000

    def many():
        for _ in range(n):
            x.add_(1)

    ms = time_ms(many, reps=10, warmup=2)
    results.append({"kind": "launch", "op": "back-to-back tiny add_ kernels from Python", "kernels": n, "time_per_kernel_us": round(ms * 1e3 / n, 3)})
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        many()
    ms = time_ms(g.replay, reps=10, warmup=2)
    results.append({"kind": "launch", "op": "same kernels replayed as a CUDA graph", "kernels": n, "time_per_kernel_us": round(ms * 1e3 / n, 3)})


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    props = torch.cuda.get_device_properties(0)
    meta = {
        "gpu": props.name,
        "multiprocessors": props.multi_processor_count,
        "date": datetime.date.today().isoformat(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "method": "median of timed repetitions after warm-ups, CUDA events, random normal data",
    }
    results = []
    for part in (measure_elementwise, measure_optimizer, measure_phases, measure_launch):
        part(results)
        print(part.__name__, len(results), flush=True)
    write_results(out_dir, "kernels_", meta, results)


if __name__ == "__main__":
    main()
