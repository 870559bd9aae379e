#!/usr/bin/env python3
"""The Hopper kernel fit's GEMM and attention points timed again, two ways
side by side: as the fit timed them (one eager call between two CUDA events,
measure_gpu.time_ms) and back to back (CUDA events around CALLS calls
launched without synchronising, per call), the way kernels run inside a
training step. GEMMs are also timed back to back in the three layouts a
training step runs (forward x @ W.T = "nt", data gradient dy @ W = "nn",
weight gradient dy.T @ x = "tn") for the same m, n, k. Issue #16: a step's
GEMMs and attention ran 16-28 % faster than the fit's points
(docs/accuracy.md, "Both single-GPU H100 steps").

    python3 measure_back_to_back.py KERNEL_POINTS_YAML OUT_DIR [SECTIONS]

writes OUT_DIR/back_to_back.json, or OUT_DIR/back_to_back_SECTIONS.json when
SECTIONS (comma-separated, of gemm, attention, other_dtypes; all by default)
is given. other_dtypes: the fit's fp16 and fp8 GEMMs in the fit's own layout
(fp8 as torch._scaled_mm of e4m3 operands, the second one column-major).

Each shape's timings are taken one right after the other, so their ratios
hold even where the card's clock drifts; log the clock beside it with
nvidia-smi.
"""
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_gpu import attention_backends, time_ms  # noqa: E402

CALLS = 20
REPEATS = 3


def back_to_back_ms(fn, calls=CALLS, repeats=REPEATS):
    """Median over `repeats` of the per-call time of `calls` unsynchronised calls."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    return statistics.median(times)


def gemm_row(m, n, k):
    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    a, b = torch.randn(m, k, **bf16), torch.randn(k, n, **bf16)  # nn: a @ b (the fit's layout, dy @ W)
    w = torch.randn(n, k, **bf16)  # nt: F.linear(a, w) = a @ w.T (forward)
    at = torch.randn(k, m, **bf16)  # tn: at.T @ b (weight gradient)
    calls = {"nn": lambda: a @ b, "nt": lambda: F.linear(a, w), "tn": lambda: at.t() @ b}
    row = {"m": m, "n": n, "k": k, "nn_per_call_ms": round(time_ms(calls["nn"]), 5)}
    for layout, fn in calls.items():
        row[f"{layout}_back_to_back_ms"] = round(back_to_back_ms(fn), 5)
    flops = 2 * m * n * k
    for key in [key for key in row if key.endswith("_ms")]:
        row[key.replace("_ms", "_tflops")] = round(flops / row[key] / 1e9, 1)
    return row


def measure_gemms(points):
    rows, seen = [], set()
    for p in points["gemm"]:
        shape = (p["m"], p["n"], p["k"])
        if p.get("dtype") != "bf16" or shape in seen:
            continue
        seen.add(shape)
        row = {**gemm_row(*shape), "split": p["split"], "fit_time_ms": p["time_ms"]}
        rows.append(row)
        print("gemm", row, flush=True)
        torch.cuda.empty_cache()
    return rows


def gemm_call(dtype, m, n, k):
    """One m x n x k GEMM as the fit timed it: a @ b (bf16, fp16), or measure_gpu.measure_gemm's fp8 call."""
    if dtype in ("bf16", "fp16"):
        torch_dtype = torch.bfloat16 if dtype == "bf16" else torch.float16
        a, b = (torch.randn(m, k, device="cuda", dtype=torch_dtype),
                torch.randn(k, n, device="cuda", dtype=torch_dtype))
        return lambda: a @ b
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
    one = torch.tensor(1.0, device="cuda")
    return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)


def other_dtype_row(dtype, m, n, k):
    fn = gemm_call(dtype, m, n, k)
    row = {"dtype": dtype, "m": m, "n": n, "k": k, "per_call_ms": round(time_ms(fn), 5),
           "back_to_back_ms": round(back_to_back_ms(fn), 5)}
    for key in ("per_call_ms", "back_to_back_ms"):
        row[key.replace("_ms", "_tflops")] = round(2 * m * n * k / row[key] / 1e9, 1)
    return row


def measure_other_dtypes(points):
    rows = []
    for p in points["gemm"]:
        if p.get("dtype") not in ("fp16", "fp8"):
            continue
        try:
            row = other_dtype_row(p["dtype"], p["m"], p["n"], p["k"])
        except Exception as err:  # noqa: BLE001
            row = {"dtype": p["dtype"], "m": p["m"], "n": p["n"], "k": p["k"], "error": str(err).splitlines()[0][:200]}
        row.update({"split": p["split"], "fit_time_ms": p["time_ms"]})
        rows.append(row)
        print("gemm", row, flush=True)
        torch.cuda.empty_cache()
    return rows


def attention_calls(backend, batch, heads, seq, head_dim, causal):
    """(backend context, forward, forward + backward) of causal or full SDPA on random bf16 q, k, v."""
    from torch.nn.attention import sdpa_kernel

    q, k, v = (torch.randn(batch, heads, seq, head_dim, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    backend_context = lambda: sdpa_kernel([attention_backends()[backend]])
    fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    with backend_context():
        grad = torch.randn_like(fwd())

    def fwd_bwd():
        # q, k and v are leaves: with their .grad kept, every call after the
        # first would add the new gradients into it in place, copies a training
        # step never runs. The 2026-11-25/26 files were timed with those adds
        # (kernel_points.py takes them out, grad_accumulation_ms).
        q.grad = k.grad = v.grad = None
        F.scaled_dot_product_attention(q, k, v, is_causal=causal).backward(grad)

    return backend_context(), fwd, fwd_bwd


def attention_row(backend, batch, heads, seq, head_dim, causal):
    context, fwd, fwd_bwd = attention_calls(backend, batch, heads, seq, head_dim, causal)
    with context:
        row = {"fwd_per_call_ms": time_ms(fwd, reps=10, warmup=3),
               "fwd_back_to_back_ms": back_to_back_ms(fwd, calls=10),
               "fwd_bwd_per_call_ms": time_ms(fwd_bwd, reps=10, warmup=3),
               "fwd_bwd_back_to_back_ms": back_to_back_ms(fwd_bwd, calls=10)}
    return {key: round(ms, 5) for key, ms in row.items()}


def measure_attention(backends=("flash", "cudnn"), row_of=None, after_head_dim=lambda rows: None):
    """measure_gpu.measure_attention's grid, one row per case from row_of (attention_row by default)."""
    rows, total_tokens, hidden = [], 16384, 2048
    for backend in backends:
        for head_dim in (64, 128, 256):
            for causal in (False, True):
                for seq in (512, 1024, 2048, 4096, 8192, 16384):
                    batch, heads = total_tokens // seq, hidden // head_dim
                    row = {"backend": backend, "batch": batch, "heads": heads, "seq_len": seq,
                           "head_dim": head_dim, "causal": causal}
                    try:
                        row.update((row_of or attention_row)(backend, batch, heads, seq, head_dim, causal))
                    except Exception as err:  # noqa: BLE001
                        row["error"] = str(err).splitlines()[0][:200]
                    rows.append(row)
                    print("attention", row, flush=True)
                    torch.cuda.empty_cache()
            after_head_dim(rows)
    return rows


def median_ratio(rows, num, den):
    ratios = [r[num] / r[den] for r in rows if num in r and den in r]
    return round(statistics.median(ratios), 4) if ratios else None


def main(points_path, out_dir, sections=None):
    with open(points_path) as f:
        points = yaml.safe_load(f)
    out = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
           "cudnn": torch.backends.cudnn.version(), "date": time.strftime("%Y-%m-%d"),
           "method": f"per_call: measure_gpu.time_ms (median of 20 (GEMM) or 10 (attention) CUDA-event-timed "
           f"eager calls after warm-ups); back_to_back: CUDA events around {CALLS} (GEMM) or 10 (attention) "
           f"calls launched without synchronising, per call, median of {REPEATS}; random normal bf16 data"}
    time.sleep(3)
    name_of_file = "back_to_back.json" if sections is None else f"back_to_back_{sections.replace(',', '_')}.json"
    wanted = (sections or "gemm,attention,other_dtypes").split(",")
    for name, measure in (("gemm", lambda: measure_gemms(points)), ("attention", measure_attention),
                          ("other_dtypes", lambda: measure_other_dtypes(points))):
        if name not in wanted:
            continue
        try:
            out[name] = measure()
        except Exception as err:  # noqa: BLE001
            out[name + "_error"] = str(err).splitlines()[0][:300]
        with open(os.path.join(out_dir, name_of_file), "w") as f:
            json.dump(out, f, indent=1)
    gemm = [r for r in out.get("gemm", []) if r["nn_per_call_ms"] >= 0.05]
    att = out.get("attention", [])
    out["summary"] = {
        "gemm (per call >= 50 us) nn back to back / nn per call": median_ratio(gemm, "nn_back_to_back_ms", "nn_per_call_ms"),
        "gemm nt back to back / nn back to back": median_ratio(gemm, "nt_back_to_back_ms", "nn_back_to_back_ms"),
        "gemm tn back to back / nn back to back": median_ratio(gemm, "tn_back_to_back_ms", "nn_back_to_back_ms"),
        "attention fwd back to back / per call": median_ratio(att, "fwd_back_to_back_ms", "fwd_per_call_ms"),
        "attention fwd_bwd back to back / per call": median_ratio(att, "fwd_bwd_back_to_back_ms", "fwd_bwd_per_call_ms"),
    }
    for dtype in ("fp16", "fp8"):
        rows = [r for r in out.get("other_dtypes", []) if r["dtype"] == dtype and r.get("per_call_ms", 0) >= 0.05]
        out["summary"][f"gemm {dtype} (per call >= 50 us) back to back / per call"] = median_ratio(
            rows, "back_to_back_ms", "per_call_ms")
    with open(os.path.join(out_dir, name_of_file), "w") as f:
        json.dump(out, f, indent=1)
    print(json.dumps(out["summary"], indent=1))


if __name__ == "__main__":
    main(*sys.argv[1:4])
