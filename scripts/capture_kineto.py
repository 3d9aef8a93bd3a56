#!/usr/bin/env python3
"""Capture PyTorch-profiler (Kineto) traces of known workloads on the local CUDA GPU,
the way tb/data/kineto/h100_*.json.gz were made (tb/data/kineto/README.md).

Usage: python3 scripts/capture_kineto.py OUTDIR [--prefix h100] [--only NAME,...]

Needs PyTorch with CUDA (torchvision for 'resnet'). Writes OUTDIR/PREFIX_NAME_N_kernels.json.gz
(gzip, mtime 0) for each workload, N the kernel events in it, and OUTDIR/PREFIX_env.txt (the
versions, the device and its clocks). Each workload runs untraced first (warm-up: cuDNN and
cuBLAS choose their kernels, the caching allocator fills), then traced. The profiler records
CPU and CUDA activity with CUDA synchronisation events (the cuda_sync 'Stream Wait Event'
records that give cross-stream dependencies), no shapes, no stacks. A workload that fails
is reported and the others still run; the exit status is then 1.

Workloads:
  transformer  4 encoder layers (d_model 512, 8 heads, batch 16 x 256 tokens), bf16
               autocast, AdamW: 4 training steps, one stream.
  resnet       torchvision ResNet-18 (untrained), batch 64 at 112x112, fp16 autocast with a
               gradient scaler, SGD with momentum: 4 training steps (cuDNN convolutions).
  transformer_large  as transformer with 6 layers of d_model 1024 (16 heads), batch 32 x
               512 tokens: 3 steps, each GPU-bound (the host runs ahead: kernels queue).
  resnet_large ResNet-50, batch 256 at 224x224: 3 steps, GPU-bound likewise.
  graph        a 3-layer MLP's forward, backward and SGD update captured once as a CUDA
               graph and replayed 30 times (each replay one cudaGraphLaunch).
  launch       launch overheads: (a) 400 one-CTA kernels queued behind a 20 ms sleep
               kernel (busy-queue gaps, kernel after kernel); (b) 100 kernels each
               launched onto an idle GPU (synchronise, wait 200 us, launch: the idle
               launch latency); (c) 20 rounds of two streams, the second waiting on an
               event recorded on the first behind a sleep (cross-stream waits); (d) one
               elementwise kernel over 128 MiB (tens of thousands of CTAs: waves on
               the whole GPU).
"""
import argparse
import collections
import gzip
import json
import os
import platform
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import gdtrace  # noqa: E402  (OutputFile: outputs whole or not at all)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 2)[2].split("\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", help="folder for the captures (created if missing)")
    ap.add_argument("--prefix", default="h100", help="start of each file name (default: h100)")
    ap.add_argument("--only", default="", help="comma-separated workloads to capture (default: all)")
    args = ap.parse_args()

    try:
        import torch
        from torch.profiler import ProfilerActivity, profile
    except ImportError as exc:
        sys.exit("capture_kineto: needs PyTorch with CUDA (%s)" % exc)

    if not torch.cuda.is_available():
        sys.exit("capture_kineto: no CUDA device")
    os.makedirs(args.outdir, exist_ok=True)
    dev = torch.device("cuda")
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)

    def experimental():
        try:
            return torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
        except Exception as exc:  # older PyTorch: captures without cuda_sync records
            print("capture_kineto: no cuda_sync events (%s)" % exc, flush=True)
            return None

    def capture(name, setup, step, steps):
        t0 = time.time()
        state = setup()
        for _ in range(2):
            step(state)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                     experimental_config=experimental()) as prof:
            for _ in range(steps):
                step(state)
            torch.cuda.synchronize()
        raw = os.path.join(args.outdir, "%s_%s.json" % (args.prefix, name))
        prof.export_chrome_trace(raw)
        with open(raw, "rb") as f:
            data = f.read()
        os.unlink(raw)
        doc = json.loads(data)
        cats = collections.Counter(str(e.get("cat")) for e in doc.get("traceEvents", []))
        n = cats["kernel"]
        out = os.path.join(args.outdir, "%s_%s_%d_kernels.json.gz" % (args.prefix, name, n))
        with gdtrace.OutputFile(out, "wb") as f:   # whole or not at all
            f.write(gzip.compress(data, 9, mtime=0))
        print("capture_kineto: %s: %d kernels, %s, %d bytes gzip, %.1f s" %
              (out, n, json.dumps(dict(sorted(cats.items()))), os.path.getsize(out),
               time.time() - t0), flush=True)
        del state
        torch.cuda.empty_cache()

    # ---- transformer --------------------------------------------------------------
    def transformer_setup(width=512, heads=8, layers=4, batch=16, tokens=256):
        layer = torch.nn.TransformerEncoderLayer(width, heads, 4 * width, batch_first=True, dropout=0.0)
        model = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False).to(dev)
        head = torch.nn.Linear(width, 1000).to(dev)
        params = list(model.parameters()) + list(head.parameters())
        opt = torch.optim.AdamW(params, lr=1e-4)
        x = torch.randn(batch, tokens, width, device=dev)
        y = torch.randint(0, 1000, (batch * tokens,), device=dev)
        return (model, head, opt, x, y)

    def transformer_step(s):
        model, head, opt, x, y = s
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = head(model(x)).reshape(-1, 1000)
            loss = torch.nn.functional.cross_entropy(out.float(), y)
        loss.backward()
        opt.step()

    # ---- resnet -------------------------------------------------------------------
    def resnet_setup(batch=64, pixels=112, depth=18):
        import torchvision
        model = getattr(torchvision.models, "resnet%d" % depth)(weights=None)
        model = model.to(dev).to(memory_format=torch.channels_last)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        scaler = torch.amp.GradScaler("cuda")
        x = torch.randn(batch, 3, pixels, pixels, device=dev).to(memory_format=torch.channels_last)
        y = torch.randint(0, 1000, (batch,), device=dev)
        return (model, opt, scaler, x, y)

    def resnet_step(s):
        model, opt, scaler, x, y = s
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    # ---- graph --------------------------------------------------------------------
    def graph_setup():
        model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(),
                                    torch.nn.Linear(4096, 4096), torch.nn.GELU(),
                                    torch.nn.Linear(4096, 1024)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=1e-3)
        x = torch.randn(256, 1024, device=dev)
        y = torch.randn(256, 1024, device=dev)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                opt.zero_grad(set_to_none=False)
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        opt.zero_grad(set_to_none=False)
        with torch.cuda.graph(g):
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        return (g, model, opt, x, y)

    def graph_step(s):
        s[0].replay()

    # ---- launch -------------------------------------------------------------------
    def launch_setup():
        return (torch.zeros(256, device=dev), torch.zeros(131072 * 256, device=dev),
                torch.cuda.Stream(), torch.cuda.Stream())

    def launch_step(s):
        small, big, s1, s2 = s
        torch.cuda._sleep(40_000_000)            # ~20 ms at 1.98 GHz: the queue fills
        for _ in range(400):
            small.add_(1.0)                      # one CTA
        torch.cuda.synchronize()
        for _ in range(100):
            time.sleep(200e-6)
            small.add_(1.0)
            torch.cuda.synchronize()
        cur = torch.cuda.current_stream()
        for _ in range(20):
            ev = torch.cuda.Event()
            s1.wait_stream(cur)
            with torch.cuda.stream(s1):
                torch.cuda._sleep(200_000)       # ~0.1 ms
                small.add_(1.0)
                ev.record(s1)
            s2.wait_event(ev)
            with torch.cuda.stream(s2):
                small.mul_(0.5)
            cur.wait_stream(s2)
        torch.cuda.synchronize()
        big.add_(1.0)                            # tens of thousands of CTAs
        torch.cuda.synchronize()

    work = [("transformer", transformer_setup, transformer_step, 4),
            ("resnet", resnet_setup, resnet_step, 4),
            ("graph", graph_setup, graph_step, 30),
            ("launch", launch_setup, launch_step, 1),
            ("transformer_large", lambda: transformer_setup(1024, 16, 6, 32, 512), transformer_step, 3),
            ("resnet_large", lambda: resnet_setup(256, 224, 50), resnet_step, 3)]
    only = [w for w in args.only.split(",") if w]
    unknown = sorted(set(only) - {w[0] for w in work})
    if unknown:
        sys.exit("capture_kineto: --only: no workload %s (there are %s)" % (
            ", ".join(unknown), ", ".join(w[0] for w in work)))
    env = ["python %s" % platform.python_version(), "torch %s" % torch.__version__,
           "cuda %s" % torch.version.cuda, "cudnn %s" % torch.backends.cudnn.version(),
           "device %s" % torch.cuda.get_device_name(0),
           "properties %s" % torch.cuda.get_device_properties(0)]
    failed = []
    for name, setup, step, steps in work:
        if only and name not in only:
            continue
        try:
            capture(name, setup, step, steps)
        except Exception as exc:
            print("capture_kineto: %s failed: %r" % (name, exc), flush=True)
            env.append("%s failed: %r" % (name, exc))
            failed.append(name)
    try:
        env.append(subprocess.run(["nvidia-smi", "-q", "-d", "CLOCK"], capture_output=True,
                                  text=True, timeout=30).stdout)
    except Exception as exc:
        env.append("nvidia-smi: %r" % exc)
    with open(os.path.join(args.outdir, "%s_env.txt" % args.prefix), "w") as f:
        f.write("\n".join(env) + "\n")
    print("\n".join(env[:6]), flush=True)
    if failed:
        sys.exit("capture_kineto: failed: %s (above)" % ", ".join(failed))


if __name__ == "__main__":
    main()
