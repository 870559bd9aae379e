#!/usr/bin/env python3
"""Measures the figures simctl's GPU model is checked against, on the GPU at hand.

Run on a machine with one CUDA GPU and PyTorch:
    python3 measure_gpu.py OUT_DIR
It writes OUT_DIR/<gpu>_<date>.yaml with one entry per measurement:
  gemm       C[m,n] = A[m,k] B[k,n] through torch.matmul (cuBLAS/cuBLASLt);
             FP8 through torch._scaled_mm (E4M3 x E4M3 -> bf16, per-tensor scales)
  attention  torch.nn.functional.scaled_dot_product_attention pinned to one
             backend (flash = FlashAttention-2 inside PyTorch, cudnn = cuDNN
             fused attention, efficient = xFormers/CUTLASS memory-efficient);
             FLOPs follow FlashAttention's benchmark convention
             (fwd 4*b*h*s^2*d, halved when causal; bwd 2.5x fwd)
  stream     copy (2 arrays) and triad (3 arrays) over large bf16 tensors
  host_copy  host<->device copies, pinned and pageable
  train_step one step of a small GPT (fwd+bwd+fused AdamW) under bf16 autocast
Each figure is the median over timed repetitions after warm-ups, timed with
CUDA events, on random normal data.
"""
import datetime
import json
import os
import platform
import statistics
import sys

import torch
import torch.nn.functional as F

REPS = 20
WARMUP = 5


def time_ms(fn, reps=REPS, warmup=WARMUP):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def gemm_shapes():
    shapes = [(n, n, n) for n in (512, 1024, 2048, 4096, 8192, 16384)]
    # Megatron GPT layers of mid-size models: tokens = micro-batch * seq.
    for hidden in (2048, 2560, 4096, 5120, 8192):
        for tokens in (2048, 8192):
            for tp in (1, 8):
                shapes += [
                    (tokens, 3 * hidden // tp, hidden),  # QKV
                    (tokens, hidden, hidden // tp),  # attention proj
                    (tokens, 4 * hidden // tp, hidden),  # FC1
                    (tokens, hidden, 4 * hidden // tp),  # FC2
                ]
    # wave-quantisation sweep: n steps past a multiple of the tile grid
    for n in (4096, 4224, 4352, 4608, 5120, 6144, 6272):
        shapes.append((8192, n, 4096))
    seen, out = set(), []
    for s in shapes:
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def measure_gemm(results):
    for dtype_name, dtype in (("bf16", torch.bfloat16), ("fp16", torch.float16)):
        for m, n, k in gemm_shapes():
            if dtype_name == "fp16" and not (m == n == k):
                continue
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            ms = time_ms(lambda: torch.matmul(a, b))
            results.append(
                {
                    "kind": "gemm",
                    "dtype": dtype_name,
                    "shape": {"m": m, "n": n, "k": k},
                    "time_ms": round(ms, 5),
                    "tflops": round(2 * m * n * k / ms / 1e9, 1),
                }
            )
    if not hasattr(torch, "_scaled_mm"):
        return
    for m, n, k in gemm_shapes():
        try:
            a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
            b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
            one = torch.tensor(1.0, device="cuda")
            fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            ms = time_ms(fn)
        except Exception as err:  # noqa: BLE001 - record why a shape has no figure
            results.append({"kind": "gemm", "dtype": "fp8", "shape": {"m": m, "n": n, "k": k}, "error": str(err)[:200]})
            continue
        results.append(
            {
                "kind": "gemm",
                "dtype": "fp8",
                "shape": {"m": m, "n": n, "k": k},
                "time_ms": round(ms, 5),
                "tflops": round(2 * m * n * k / ms / 1e9, 1),
            }
        )


def attention_backends():
    from torch.nn.attention import SDPBackend

    return {
        "flash": SDPBackend.FLASH_ATTENTION,
        "cudnn": SDPBackend.CUDNN_ATTENTION,
        "efficient": SDPBackend.EFFICIENT_ATTENTION,
    }


def measure_attention(results):
    from torch.nn.attention import sdpa_kernel

    total_tokens, hidden = 16384, 2048
    for name, backend in attention_backends().items():
        for head_dim in (64, 128, 256):
            for causal in (False, True):
                for seq in (512, 1024, 2048, 4096, 8192, 16384):
                    batch, heads = total_tokens // seq, hidden // head_dim
                    entry = {
                        "kind": "attention",
                        "backend": name,
                        "dtype": "bf16",
                        "batch": batch,
                        "heads": heads,
                        "seq_len": seq,
                        "head_dim": head_dim,
                        "causal": causal,
                    }
                    fwd_flops = 4 * batch * heads * seq * seq * head_dim / (2 if causal else 1)
                    try:
                        q, k, v = (
                            torch.randn(batch, heads, seq, head_dim, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                            for _ in range(3)
                        )
                        with sdpa_kernel([backend]):
                            fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                            fwd_ms = time_ms(fwd, reps=10, warmup=3)
                            out = fwd()
                            grad = torch.randn_like(out)

                            def fwd_bwd():
                                # Leaves keeping .grad would add every new gradient into it
                                # in place (measure_back_to_back.attention_calls says why).
                                q.grad = k.grad = v.grad = None
                                o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                                o.backward(grad)

                            fwd_bwd_ms = time_ms(fwd_bwd, reps=10, warmup=3)
                    except Exception as err:  # noqa: BLE001
                        entry["error"] = str(err).splitlines()[0][:200]
                        results.append(entry)
                        continue
                    entry.update(
                        {
                            "fwd_ms": round(fwd_ms, 4),
                            "fwd_tflops": round(fwd_flops / fwd_ms / 1e9, 1),
                            "fwd_bwd_ms": round(fwd_bwd_ms, 4),
                            "fwd_bwd_tflops": round(3.5 * fwd_flops / fwd_bwd_ms / 1e9, 1),
                            "bwd_tflops": round(2.5 * fwd_flops / max(fwd_bwd_ms - fwd_ms, 1e-9) / 1e9, 1),
                        }
                    )
                    results.append(entry)
                    del q, k, v
    torch.cuda.empty_cache()


def measure_stream(results):
    for elements in (1 << 20, 1 << 24, 1 << 28, 1 << 30):
        a = torch.empty(elements, device="cuda", dtype=torch.bfloat16).normal_()
        b = torch.empty_like(a)
        c = torch.empty_like(a).normal_()
        ms = time_ms(lambda: b.copy_(a))
        results.append({"kind": "stream", "op": "copy", "bytes": 2 * 2 * elements, "time_ms": round(ms, 5), "gb_per_s": round(4 * elements / ms / 1e6, 1)})
        ms = time_ms(lambda: torch.add(b, c, alpha=0.5, out=a))
        results.append({"kind": "stream", "op": "triad", "bytes": 3 * 2 * elements, "time_ms": round(ms, 5), "gb_per_s": round(6 * elements / ms / 1e6, 1)})
        del a, b, c
    torch.cuda.empty_cache()


def measure_host_copies(results):
    for size in (1 << 16, 1 << 20, 1 << 24, 1 << 28, 1 << 30):
        dev = torch.empty(size, dtype=torch.uint8, device="cuda")
        for pinned in (True, False):
            host = torch.empty(size, dtype=torch.uint8, pin_memory=pinned)
            host.fill_(1)
            for direction in ("h2d", "d2h"):
                if direction == "h2d":
                    fn = lambda: dev.copy_(host, non_blocking=pinned)
                else:
                    fn = lambda: host.copy_(dev, non_blocking=pinned)
                ms = time_ms(fn, reps=10, warmup=2)
                results.append(
                    {
                        "kind": "host_copy",
                        "direction": direction,
                        "host_memory": "pinned" if pinned else "pageable",
                        "bytes": size,
                        "time_ms": round(ms, 5),
                        "gb_per_s": round(size / ms / 1e6, 2),
                    }
                )
            del host
        del dev


class Block(torch.nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(hidden)
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.proj = torch.nn.Linear(hidden, hidden)
        self.ln2 = torch.nn.LayerNorm(hidden)
        self.fc1 = torch.nn.Linear(hidden, 4 * hidden)
        self.fc2 = torch.nn.Linear(4 * hidden, hidden)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, h))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class Gpt(torch.nn.Module):
    def __init__(self, layers, hidden, heads, vocab, seq):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, hidden)
        self.pos = torch.nn.Embedding(seq, hidden)
        self.blocks = torch.nn.ModuleList(Block(hidden, heads) for _ in range(layers))
        self.ln = torch.nn.LayerNorm(hidden)
        self.head = torch.nn.Linear(hidden, vocab, bias=False)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos.weight[: tokens.shape[1]]
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


def measure_train_step(results):
    for layers, hidden, heads, seq, batch in ((12, 768, 12, 1024, 8), (24, 1024, 16, 1024, 8), (24, 2048, 16, 2048, 4)):
        vocab = 50304
        model = Gpt(layers, hidden, heads, vocab, seq).cuda()
        params = sum(p.numel() for p in model.parameters())
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        tokens = torch.randint(0, vocab, (batch, seq), device="cuda")

        def step():
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = model(tokens)
            loss = F.cross_entropy(logits.float().view(-1, vocab), tokens.view(-1))
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)

        torch.cuda.reset_peak_memory_stats()
        ms = time_ms(step, reps=10, warmup=3)
        results.append(
            {
                "kind": "train_step",
                "model": {"layers": layers, "hidden": hidden, "heads": heads, "seq_len": seq, "vocab": vocab, "parameters": params},
                "micro_batch": batch,
                "precision": "bf16 autocast, fp32 weights, fused AdamW, SDPA causal attention, no recompute",
                "time_ms": round(ms, 3),
                "tokens_per_s": round(batch * seq / ms * 1e3, 0),
                "peak_memory_gib": round(torch.cuda.max_memory_allocated() / 2**30, 3),
            }
        )
        del model, opt
        torch.cuda.empty_cache()


def write_results(out_dir, kind, meta, results):
    """Writes OUT_DIR/<gpu>_<kind><date>.json, the one layout both scripts use."""
    name = torch.cuda.get_device_properties(0).name.lower().replace(" ", "_")
    path = os.path.join(out_dir, f"{name}_{kind}{meta['date']}.json")
    with open(path, "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    print("wrote", path)


def gpu_meta(method):
    """The GPU, software and method a results file records (every script's)."""
    props = torch.cuda.get_device_properties(0)
    return {
        "gpu": props.name,
        "multiprocessors": props.multi_processor_count,
        "memory_gib": round(props.total_memory / 2**30, 1),
        "date": datetime.date.today().isoformat(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "host": platform.processor() or platform.machine(),
        "method": method,
    }


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    meta = gpu_meta("median of timed repetitions after warm-ups, CUDA events, random normal data")
    results = []
    parts = sys.argv[2].split(",") if len(sys.argv) > 2 else ["gemm", "attention", "stream", "host_copy", "train_step"]
    for part in parts:
        globals()["measure_" + part if part != "host_copy" else "measure_host_copies"](results)
        print(f"{part}: {len(results)} entries so far", flush=True)
    write_results(out_dir, "", meta, results)


if __name__ == "__main__":
    main()
