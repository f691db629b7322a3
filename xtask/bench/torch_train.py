"""Reference timing of one SIREN training step (forward, backward, Adam) in PyTorch.

Run by `cargo xtask bench train`; prints one JSON object per network, the same fields as
`iron-learn bench train --json`. Same network, data size, loss, optimizer and precision
(float32, eager mode) as the Rust side.
"""
import argparse
import json
import math
import statistics
import time

import torch


class Sine(torch.nn.Module):
    def __init__(self, w0):
        super().__init__()
        self.w0 = w0

    def forward(self, x):
        return torch.sin(self.w0 * x)


def siren(width, depth, w0=30.0):
    layers, fan_in = [], 2
    for i in range(depth):
        lin = torch.nn.Linear(fan_in, width)
        bound = 1.0 / fan_in if i == 0 else math.sqrt(6.0 / fan_in) / w0
        torch.nn.init.uniform_(lin.weight, -bound, bound)
        layers += [lin, Sine(w0)]
        fan_in = width
    out = torch.nn.Linear(fan_in, 1)
    bound = math.sqrt(6.0 / fan_in) / w0
    torch.nn.init.uniform_(out.weight, -bound, bound)
    layers.append(out)
    return torch.nn.Sequential(*layers)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu")
    p.add_argument("--hidden", default="256x3,128x3")
    p.add_argument("--points", type=int, default=40_000)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--threads", type=int, default=0)
    a = p.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device(a.device)
    gen = torch.Generator().manual_seed(7)
    x = (torch.rand(a.points, 2, generator=gen) * 2 - 1).to(dev)
    y = torch.rand(a.points, 1, generator=gen).to(dev)
    for spec in a.hidden.split(","):
        width, depth = (int(v) for v in spec.lower().split("x"))
        model = siren(width, depth).to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-4)
        times = []
        for rep in range(3 + a.reps):
            if dev.type == "cuda":
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            if dev.type == "cuda":
                end.record()
                torch.cuda.synchronize()
                ms = start.elapsed_time(end)
            else:
                ms = (time.perf_counter() - t0) * 1e3
            if rep >= 3:
                times.append(ms)
        params = sum(p.numel() for p in model.parameters())
        print(json.dumps({
            "network": spec, "points": a.points, "device": f"torch {torch.__version__} {a.device}",
            "median_ms": statistics.median(times), "min_ms": min(times),
            "parameters": params, "reps": len(times),
        }))


if __name__ == "__main__":
    main()
