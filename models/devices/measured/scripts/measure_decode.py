#!/usr/bin/env python3
"""Measures prefill and decode of a Llama-shaped model in plain PyTorch.

Run on a machine with one CUDA GPU and PyTorch (no model download: the
weights are random bf16):
    python3 measure_decode.py OUT_DIR
It writes OUT_DIR/<gpu>_decode_<date>.json with one entry per measurement:
  prefill  one forward pass over batch x prompt tokens (causal SDPA, flash
           backend), writing the prompt's K and V into the cache and taking
           the last token's logits: the time to first token of a static batch
  decode   one decode step at batch b with `context` tokens already cached:
           every layer's QKV/out/MLP GEMMs on b rows, RoPE, the new K and V
           written into a preallocated cache, attention of each query over
           the cache (GQA as one group of queries per KV head), the LM head
           on b rows; timed eagerly (one launch per kernel, no CUDA graph)
           and replayed as a CUDA graph (what serving engines run)
Models: Llama 3.2 1B and Llama 3 8B shapes (hidden, layers, heads, KV heads,
MLP width, vocabulary as published); batch and context grids are kept
within 40 GiB of KV cache. Median of timed repetitions after warm-ups, CUDA
events. Whole run: about 2-3 minutes on an H100.
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(__file__))
from measure_gpu import gpu_meta, time_ms, write_results  # noqa: E402

# name: (hidden, layers, heads, kv_heads, ffn, vocab)
MODELS = {
    "llama3.2-1b": (2048, 16, 32, 8, 8192, 128256),
    "llama3-8b": (4096, 32, 32, 8, 14336, 128256),
}
PREFILL = [(1, 128), (1, 512), (1, 2048), (1, 8192), (8, 512), (4, 2048), (32, 512)]
DECODE_BATCHES = [1, 8, 32, 64, 128, 256]
DECODE_CONTEXTS = [512, 2048, 8192]
KV_BUDGET_BYTES = 40 * 2**30
BF = torch.bfloat16


class Llama:
    """Weights of a Llama-shaped decoder as plain tensors (no nn.Module)."""

    def __init__(self, hidden, layers, heads, kv_heads, ffn, vocab):
        self.hidden, self.layers, self.heads, self.kv_heads, self.ffn, self.vocab = hidden, layers, heads, kv_heads, ffn, vocab
        self.head_dim = hidden // heads
        qkv = (heads + 2 * kv_heads) * self.head_dim

        def w(k, n):
            return torch.randn(k, n, device="cuda", dtype=BF) * (k ** -0.5)

        self.embed = torch.randn(vocab, hidden, device="cuda", dtype=BF)
        self.blocks = [dict(ln1=torch.ones(hidden, device="cuda", dtype=BF), qkv=w(hidden, qkv), out=w(hidden, hidden),
                            ln2=torch.ones(hidden, device="cuda", dtype=BF), up=w(hidden, 2 * ffn), down=w(ffn, hidden))
                       for _ in range(layers)]
        self.norm = torch.ones(hidden, device="cuda", dtype=BF)
        self.head = w(hidden, vocab)

    def parameters(self):
        per_block = sum(t.numel() for t in self.blocks[0].values())
        return self.embed.numel() + self.layers * per_block + self.norm.numel() + self.head.numel()

    def cache(self, batch, tokens):
        shape = (self.layers, 2, batch, self.kv_heads, tokens, self.head_dim)
        return torch.zeros(shape, device="cuda", dtype=BF)


def rms_norm(x, weight):
    return F.rms_norm(x, (x.shape[-1],), weight, 1e-5)


def rope(x, cos, sin):
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1)


def rope_tables(head_dim, positions):
    inv = 1.0 / (500000.0 ** (torch.arange(0, head_dim, 2, device="cuda", dtype=torch.float32) / head_dim))
    angles = positions.float()[:, None] * inv[None, :]
    return angles.cos().to(BF), angles.sin().to(BF)


def forward(m, ids, cache, start, cos, sin, prefill):
    """One pass over ids [b, s] with positions start..start+s-1; returns the last logits."""
    b, s = ids.shape
    d, kvh, g = m.head_dim, m.kv_heads, m.heads // m.kv_heads
    x = m.embed[ids]
    for layer, blk in enumerate(m.blocks):
        h = rms_norm(x, blk["ln1"]) @ blk["qkv"]
        q, k, v = h.split([m.heads * d, kvh * d, kvh * d], dim=-1)
        q = rope(q.view(b, s, m.heads, d), cos, sin)
        k = rope(k.view(b, s, kvh, d), cos, sin)
        cache[layer, 0, :, :, start:start + s] = k.transpose(1, 2)
        cache[layer, 1, :, :, start:start + s] = v.view(b, s, kvh, d).transpose(1, 2)
        keys, values = cache[layer, 0, :, :, :start + s], cache[layer, 1, :, :, :start + s]
        if prefill:  # queries grouped per KV head: [b, kvh, g*s, d] would break causality, so repeat K/V
            qh = q.transpose(1, 2)
            a = F.scaled_dot_product_attention(qh, keys.repeat_interleave(g, 1), values.repeat_interleave(g, 1), is_causal=True)
            a = a.transpose(1, 2).reshape(b, s, m.hidden)
        else:  # one query per sequence: the g query heads of a KV head attend as g rows, no copy of the cache
            qg = q.view(b, kvh, g, d)
            a = F.scaled_dot_product_attention(qg, keys, values).reshape(b, 1, m.hidden)
        x = x + a @ blk["out"]
        gate, up = (rms_norm(x, blk["ln2"]) @ blk["up"]).chunk(2, dim=-1)
        x = x + (F.silu(gate) * up) @ blk["down"]
    return rms_norm(x[:, -1], m.norm) @ m.head


def measure_prefill(name, m, results):
    for batch, prompt in PREFILL:
        cache = m.cache(batch, prompt)
        ids = torch.randint(0, m.vocab, (batch, prompt), device="cuda")
        cos, sin = rope_tables(m.head_dim, torch.arange(prompt, device="cuda"))
        cos, sin = cos[None, :, None, :], sin[None, :, None, :]
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            ms = time_ms(lambda: forward(m, ids, cache, 0, cos, sin, True), reps=10, warmup=3)
        results.append({"kind": "prefill", "model": name, "batch": batch, "prompt_tokens": prompt, "ms": round(ms, 4),
                        "tokens_per_s": round(batch * prompt / ms * 1e3, 1)})
        print(f"{name} prefill b={batch} s={prompt}: {ms:.3f} ms", flush=True)
        del cache
        torch.cuda.empty_cache()


def decode_step_ms(m, batch, context, graph):
    cache = m.cache(batch, context + 1)
    ids = torch.randint(0, m.vocab, (batch, 1), device="cuda")
    cos, sin = rope_tables(m.head_dim, torch.tensor([context], device="cuda"))
    cos, sin = cos[None, :, None, :], sin[None, :, None, :]

    def step():
        return forward(m, ids, cache, context, cos, sin, False)

    if not graph:
        ms = time_ms(step, reps=10, warmup=3)
    else:
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):
                step()
        torch.cuda.current_stream().wait_stream(stream)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            step()
        ms = time_ms(g.replay, reps=20, warmup=3)
        del g
    del cache
    torch.cuda.empty_cache()
    return ms


def measure_decode(name, m, results):
    kv_bytes_per_token = 2 * m.layers * m.kv_heads * m.head_dim * 2
    for context in DECODE_CONTEXTS:
        for batch in DECODE_BATCHES:
            if batch * (context + 1) * kv_bytes_per_token > KV_BUDGET_BYTES:
                continue
            eager = decode_step_ms(m, batch, context, False)
            graph = decode_step_ms(m, batch, context, True)
            results.append({"kind": "decode", "model": name, "batch": batch, "context_tokens": context,
                            "eager_ms": round(eager, 4), "graph_ms": round(graph, 4),
                            "kv_cache_bytes": batch * context * kv_bytes_per_token,
                            "weight_bytes": m.parameters() * 2})
            print(f"{name} decode b={batch} ctx={context}: eager {eager:.3f} ms, graph {graph:.3f} ms", flush=True)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    meta = gpu_meta("median of timed repetitions after warm-ups, CUDA events, random bf16 weights; "
                    "decode timed eagerly and as a CUDA graph replay")
    meta["models"] = {k: dict(zip(("hidden", "layers", "heads", "kv_heads", "ffn", "vocab"), v)) for k, v in MODELS.items()}
    results = []
    torch.manual_seed(0)
    with torch.inference_mode():
        for name, shape in MODELS.items():
            m = Llama(*shape)
            measure_prefill(name, m, results)
            measure_decode(name, m, results)
            del m
            torch.cuda.empty_cache()
    write_results(out_dir, "decode_", meta, results)


if __name__ == "__main__":
    main()
