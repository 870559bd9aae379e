#!/usr/bin/env python3
"""Where a small model's training step stops being bound by the GPU (issue #36).

A GPT-2-style model (LayerNorm, GELU MLP, tied embeddings, vocabulary 50304,
12 layers, sequence 1024, head dim 64) in plain eager PyTorch, bf16 weights
without autocast, the loss in fp32 on upcast logits, AdamW foreach. For each
hidden size and micro-batch:

- eager: median wall time of one step, synchronised before and after
  (step_s); the host's time to issue it with the GPU idle at its start
  (host_issue_s, no synchronisation inside a step); and 10 steps back to back
  without synchronising between them (steady_s, per step).
- profile: one step under torch.profiler (wait 1, warm-up 1, active 1):
  kernels and aten ops per step, the GPU busy time (union of kernel
  intervals) by class (gemm, attention, optimizer, other), the span from the
  step's first CUDA runtime call to its last kernel's end, and the 12
  costliest kernels. The profiler adds host time, not kernel time.
- graph: the whole step (forward, backward, AdamW with capturable=True)
  captured as one CUDA graph and replayed: the step without launch gaps.
- compile (a subset of sizes, while time is left): each block compiled with
  torch.compile (default mode), then timed as eager; compile seconds kept.

    python3 measure_small_models.py OUT_DIR [KINETO_HIDDEN [sweep|compile|layers|clean|compile_all]]

sweep (default) writes OUT_DIR/small_models.json, and OUT_DIR/kineto_gpt_hHIDDEN.json.gz, the
Chrome trace of the profiled step of hidden KINETO_HIDDEN (default 256) at
micro-batch 8, with input shapes recorded; compile writes the compile rows
to OUT_DIR/small_models_compiled.json; layers writes the host time of a
hidden-256 step against its layer count (3-48, AdamW foreach and fused) to
OUT_DIR/small_models_layers.json; clean writes every size's eager step
timed with no profiler run before it in the process, then the hidden-256
step after one profiled step, to OUT_DIR/small_models_clean.json; compile_all
compiles every size (no profiler before), then profiles two compiled steps,
to OUT_DIR/small_models_compiled_all.json.
"""
import gzip
import json
import os
import shutil
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_step_profile import kernel_class as step_profile_class, union_us  # noqa: E402
from measure_train_memory import build, loss_of  # noqa: E402

LAYERS, SEQ, VOCAB = 12, 1024, 50304
HIDDEN = [128, 256, 384, 512, 768, 1024, 1536, 2048]
MICRO_BATCHES = [8, 1]
COMPILE_HIDDEN = [256, 1024]
BUDGET_S = 100.0  # a compile run starts only while the script is younger than this
T_START = time.time()


def config(hidden):
    return {"hidden": hidden, "heads": max(2, hidden // 64), "kv_heads": max(2, hidden // 64), "ffn": 4 * hidden,
            "vocab": VOCAB, "rms": False, "swiglu": False, "tied": True, "layers": LAYERS, "seq": SEQ}


def make(hidden, micro_batch, capturable=False, layers=LAYERS, fused=False):
    c = config(hidden)
    model = build(c, layers, "none", "bf16")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=not fused, fused=fused, capturable=capturable)
    tokens = torch.randint(0, VOCAB, (micro_batch, SEQ), device="cuda")
    return model, opt, tokens


def step(model, opt, tokens):
    loss_of(model, tokens).backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


def eager_timings(model, opt, tokens, reps=10):
    for _ in range(3):
        step(model, opt, tokens)
    torch.cuda.synchronize()
    walls, hosts = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        step(model, opt, tokens)
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        hosts.append(t1 - t0)
        walls.append(t2 - t0)
    t0 = time.perf_counter()
    for _ in range(reps):
        step(model, opt, tokens)
    torch.cuda.synchronize()
    steady = (time.perf_counter() - t0) / reps
    return {"step_s": round(statistics.median(walls), 6), "host_issue_s": round(statistics.median(hosts), 6),
            "steady_s": round(steady, 6)}


def kernel_class(name):
    """measure_step_profile.py's classes, with the optimizer's foreach kernels apart."""
    n = name.lower()
    return "optimizer" if "multi_tensor" in n or "adam" in n else step_profile_class(name)


def summarise_trace(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    kernels = [e for e in events if e.get("cat") in ("kernel", "Kernel") and "dur" in e]
    runtime = [e for e in events if e.get("cat") in ("cuda_runtime", "Runtime") and "dur" in e]
    cpu_ops = [e for e in events if e.get("cat") in ("cpu_op", "Operator") and "dur" in e]
    by_class, by_name = {}, {}
    for k in kernels:
        cls = kernel_class(k["name"])
        by_class.setdefault(cls, []).append((k["ts"], k["ts"] + k["dur"]))
        row = by_name.setdefault(k["name"][:120], [0, 0.0])
        row[0] += 1
        row[1] += k["dur"]
    spans = [(k["ts"], k["ts"] + k["dur"]) for k in kernels]
    first = min(e["ts"] for e in runtime) if runtime else min(s for s, _ in spans)
    top = sorted(by_name.items(), key=lambda kv: -kv[1][1])[:12]
    return {"kernels": len(kernels), "aten_ops": len(cpu_ops), "runtime_calls": len(runtime),
            "gpu_busy_ms": round(union_us(spans) / 1e3, 4),
            "busy_ms_by_class": {c: round(union_us(v) / 1e3, 4) for c, v in sorted(by_class.items())},
            "kernels_by_class": {c: len(v) for c, v in sorted(by_class.items())},
            "span_ms": round((max(e for _, e in spans) - first) / 1e3, 4),
            "top_kernels": [{"name": n, "count": c, "ms": round(us / 1e3, 4)} for n, (c, us) in top]}


def profile(model, opt, tokens, trace_path):
    from torch.profiler import ProfilerActivity, schedule
    with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                                schedule=schedule(wait=1, warmup=1, active=1)) as prof:
        for _ in range(3):
            step(model, opt, tokens)
            torch.cuda.synchronize()
            prof.step()
    prof.export_chrome_trace(trace_path)
    return summarise_trace(trace_path)


def graph_timing(model, opt, tokens):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step(model, opt, tokens)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        loss_of(model, tokens).backward()
        opt.step()
    graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(10):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        graph.replay()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    del graph
    return {"graph_step_s": round(statistics.median(times), 6)}


def compiled_timing(model, opt, tokens, reps=10):
    torch._dynamo.reset()
    t0 = time.perf_counter()
    for block in model.blocks:
        block.compile()
    step(model, opt, tokens)
    torch.cuda.synchronize()
    compile_s = time.perf_counter() - t0
    out = eager_timings(model, opt, tokens, reps)
    out["compile_s"] = round(compile_s, 2)
    return out


def layer_series():
    """Hidden 256, micro-batch 1: the host's time per step against the layer
    count (kernels and aten ops per step from the profiler), 20 repetitions,
    AdamW foreach and fused."""
    rows = []
    for layers, fused in [(3, False), (6, False), (12, False), (24, False), (48, False), (12, True), (48, True)]:
        try:
            model, opt, tokens = make(256, 1, layers=layers, fused=fused)
            row = {"hidden": 256, "micro_batch": 1, "layers": layers, "adamw": "fused" if fused else "foreach",
                   "eager": eager_timings(model, opt, tokens, reps=20)}
            row["profile"] = profile(model, opt, tokens, f"/tmp/layers_{layers}_{fused}.json")
            row["profile"].pop("top_kernels")
            print(row, flush=True)
            rows.append(row)
            del model, opt, tokens
        except Exception as err:  # noqa: BLE001
            rows.append({"layers": layers, "fused": fused, "error": f"{type(err).__name__}: {str(err)[:300]}"})
        torch.cuda.empty_cache()
    return rows


def clean_series():
    """Every size's eager step, and hidden 256 at 3-48 layers, with no profiler run before it in the process
    (CUPTI, once attached by torch.profiler, may stay subscribed and slow
    every later launch), then the hidden-256 step again after one profiled
    step, to see whether the profiler leaves a cost behind."""
    rows = []
    for micro_batch in MICRO_BATCHES:
        for hidden in HIDDEN:
            model, opt, tokens = make(hidden, micro_batch)
            rows.append({"hidden": hidden, "micro_batch": micro_batch, "layers": LAYERS, "profiled_before": False,
                         "eager": eager_timings(model, opt, tokens, reps=20)})
            print(rows[-1], flush=True)
            del model, opt, tokens
            torch.cuda.empty_cache()
    for layers in (3, 6, 24, 48):
        model, opt, tokens = make(256, 1, layers=layers)
        rows.append({"hidden": 256, "micro_batch": 1, "layers": layers, "profiled_before": False,
                     "eager": eager_timings(model, opt, tokens, reps=20)})
        print(rows[-1], flush=True)
        del model, opt, tokens
        torch.cuda.empty_cache()
    model, opt, tokens = make(256, 1)
    profile(model, opt, tokens, "/tmp/clean_profile.json")
    for _ in range(2):
        rows.append({"hidden": 256, "micro_batch": 1, "layers": LAYERS, "profiled_before": True,
                     "eager": eager_timings(model, opt, tokens, reps=20)})
        print(rows[-1], flush=True)
    return rows


def compiled_series(budget_s):
    """Every size compiled (each block, default mode) in a process that has
    not profiled yet, 20 repetitions; then two compiled steps profiled for
    their kernel and aten-op counts."""
    rows = []
    for micro_batch in MICRO_BATCHES:
        for hidden in HIDDEN:
            if time.time() - T_START > budget_s:
                rows.append({"hidden": hidden, "micro_batch": micro_batch, "skipped": "out of time"})
                continue
            model, opt, tokens = make(hidden, micro_batch)
            rows.append({"hidden": hidden, "micro_batch": micro_batch, "layers": LAYERS,
                         "compiled": compiled_timing(model, opt, tokens, reps=20)})
            print(rows[-1], flush=True)
            del model, opt, tokens
            torch.cuda.empty_cache()
    for hidden, micro_batch in [(256, 1), (1024, 8)]:
        model, opt, tokens = make(hidden, micro_batch)
        compiled_timing(model, opt, tokens, reps=3)
        summary = profile(model, opt, tokens, f"/tmp/compiled_{hidden}_{micro_batch}.json")
        rows.append({"hidden": hidden, "micro_batch": micro_batch, "layers": LAYERS, "profile_of_compiled": summary})
        print(hidden, micro_batch, {k: v for k, v in summary.items() if k != "top_kernels"}, flush=True)
        del model, opt, tokens
    return rows


def parameters(model):
    return sum(p.numel() for p in model.parameters())


def run_one(hidden, micro_batch, out_dir, kineto_hidden):
    row = {"hidden": hidden, "micro_batch": micro_batch, "layers": LAYERS, "seq": SEQ}
    model, opt, tokens = make(hidden, micro_batch)
    row["parameters"] = parameters(model)
    row["eager"] = eager_timings(model, opt, tokens)
    trace = os.path.join("/tmp", f"trace_h{hidden}_mb{micro_batch}.json")
    try:
        row["profile"] = profile(model, opt, tokens, trace)
        if hidden == kineto_hidden and micro_batch == 8:
            with open(trace, "rb") as src, gzip.open(os.path.join(out_dir, f"kineto_gpt_h{hidden}.json.gz"), "wb") as dst:
                shutil.copyfileobj(src, dst)
    except Exception as err:  # noqa: BLE001
        row["profile_error"] = str(err).splitlines()[0][:300]
    del model, opt, tokens
    torch.cuda.empty_cache()
    try:
        model, opt, tokens = make(hidden, micro_batch, capturable=True)
        row["graph"] = graph_timing(model, opt, tokens)
        del model, opt, tokens
    except Exception as err:  # noqa: BLE001
        row["graph_error"] = f"{type(err).__name__}: {str(err).splitlines()[0][:300]}"
    torch.cuda.empty_cache()
    return row


def main(out_dir, kineto_hidden, part):
    props = torch.cuda.get_device_properties(0)
    result = {"meta": {"gpu": props.name, "multiprocessors": props.multi_processor_count,
                       "date": time.strftime("%Y-%m-%d"), "torch": torch.__version__, "cuda": torch.version.cuda,
                       "cpu": os.cpu_count(), "model": config(0) | {"hidden": "per row", "heads": "hidden / 64", "kv_heads": "hidden / 64",
                                             "ffn": "4 x hidden", "layers": "per row"},
                       "method": __doc__.split("\n\n")[1]},
              "runs": [], "compiled": [], "errors": []}
    path = os.path.join(out_dir, "small_models.json")

    def save():
        with open(path, "w") as f:
            json.dump(result, f, indent=1)

    if part == "compile":
        path = os.path.join(out_dir, "small_models_compiled.json")
    if part == "compile_all":
        path = os.path.join(out_dir, "small_models_compiled_all.json")
        result["compiled"] = compiled_series(150.0)
    if part == "clean":
        path = os.path.join(out_dir, "small_models_clean.json")
        result["clean"] = clean_series()
    if part == "layers":
        path = os.path.join(out_dir, "small_models_layers.json")
        result["layers"] = layer_series()
    for micro_batch in MICRO_BATCHES if part == "sweep" else []:
        for hidden in HIDDEN:
            try:
                row = run_one(hidden, micro_batch, out_dir, kineto_hidden)
                result["runs"].append(row)
                print(hidden, micro_batch, row["eager"], row.get("graph"), row.get("profile", {}).get("gpu_busy_ms"),
                      row.get("profile", {}).get("kernels"), flush=True)
            except Exception as err:  # noqa: BLE001
                result["errors"].append(f"h{hidden} mb{micro_batch}: {type(err).__name__}: {err}"[:400])
                torch.cuda.empty_cache()
            save()
    for hidden in COMPILE_HIDDEN if part == "compile" else []:
        if time.time() - T_START > BUDGET_S:
            result["errors"].append(f"compile h{hidden}: skipped, script at {time.time() - T_START:.0f} s")
            break
        try:
            model, opt, tokens = make(hidden, 8)
            row = {"hidden": hidden, "micro_batch": 8, **compiled_timing(model, opt, tokens)}
            result["compiled"].append(row)
            print("compiled", row, flush=True)
            del model, opt, tokens
        except Exception as err:  # noqa: BLE001
            result["errors"].append(f"compile h{hidden}: {type(err).__name__}: {str(err)[:300]}")
        torch.cuda.empty_cache()
        save()
    save()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 256, sys.argv[3] if len(sys.argv) > 3 else "sweep")
