"""Reference multiresolution hash-grid model in plain PyTorch (no custom kernels).

Run by `cargo xtask bench hashgrid-train` (the `step` mode); two modes:

- `step`: times one training step (encoding forward, MLP, MSE, backward, Adam) on a random
  batch, and prints one JSON object with the same fields as
  `iron-learn bench train --hashgrid 18 --json`.
- `fit --image PATH`: fits an image on random pixel batches and prints one JSON line per
  evaluation (`step`, `train_s` excluding evaluation, `psnr`), then a summary with the training
  time at which 30, 35 and 40 dB were first reached.

The model is the recipe of Mueller et al. (2022): per level l the grid resolution is
floor(N_min * b^l) with b = exp((ln N_max - ln N_min) / (L - 1)); a level whose (res + 1)^d
corners fit in T entries is indexed densely, otherwise by the spatial hash (XOR of the integer
coordinates times 1, 2654435761, 805459861, modulo T); corner features are d-linearly
interpolated; the concatenated features feed a ReLU MLP. Adam with betas (0.9, 0.99), eps 1e-15.
Coordinates are pixel centres mapped to [0, 1].
"""
import argparse
import json
import math
import statistics
import time

import torch

PRIMES = (1, 2654435761, 805459861)


class HashGrid(torch.nn.Module):
    def __init__(self, dims, levels, features, log2_table, base, finest):
        super().__init__()
        self.dims = dims
        self.features = features
        table = 1 << log2_table
        growth = math.exp((math.log(finest) - math.log(base)) / max(levels - 1, 1))
        self.levels = []
        offset = 0
        for level in range(levels):
            res = int(math.floor(base * growth**level))
            corners = (res + 1) ** dims
            size = min(table, corners)
            self.levels.append((res, offset, size, corners <= table))
            offset += size
        self.table = torch.nn.Parameter(torch.empty(offset, features).uniform_(-1e-4, 1e-4))

    def forward(self, x):
        outs = []
        for res, offset, size, dense in self.levels:
            pos = x * res
            cell = torch.clamp(torch.floor(pos), 0, max(res - 1, 0)).long()
            frac = pos - cell
            acc = 0
            for corner in range(1 << self.dims):
                weight = 1
                index = 0 if dense else None
                stride = 1
                for axis in range(self.dims):
                    bit = (corner >> axis) & 1
                    c = cell[:, axis] + bit
                    w = frac[:, axis] if bit else 1 - frac[:, axis]
                    weight = weight * w
                    if dense:
                        index = index + c * stride
                        stride *= res + 1
                    else:
                        h = c * PRIMES[axis]
                        index = h if index is None else torch.bitwise_xor(index, h)
                if not dense:
                    index = torch.remainder(index, size)
                acc = acc + weight[:, None] * self.table[offset + index]
            outs.append(acc)
        return torch.cat(outs, dim=1)


def model(dims, levels, features, log2_table, base, finest, width, depth, outputs):
    layers = [HashGrid(dims, levels, features, log2_table, base, finest)]
    fan_in = levels * features
    for _ in range(depth):
        layers += [torch.nn.Linear(fan_in, width), torch.nn.ReLU()]
        fan_in = width
    layers.append(torch.nn.Linear(fan_in, outputs))
    return torch.nn.Sequential(*layers)


def adam(net, lr):
    return torch.optim.Adam(net.parameters(), lr=lr, betas=(0.9, 0.99), eps=1e-15)


def step(net, opt, x, y):
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(net(x), y)
    loss.backward()
    opt.step()
    return loss


def time_step(a):
    gen = torch.Generator().manual_seed(7)
    x = torch.rand(a.batch, 2, generator=gen)
    y = torch.rand(a.batch, a.outputs, generator=gen)
    net = model(2, a.levels, a.features, a.log2_table, a.base, a.finest, a.width, a.depth, a.outputs)
    opt = adam(net, a.lr)
    times = []
    for rep in range(2 + a.reps):
        t0 = time.perf_counter()
        step(net, opt, x, y)
        if rep >= 2:
            times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({
        "network": f"hashgrid L{a.levels} F{a.features} T2^{a.log2_table} mlp {a.width}x{a.depth}",
        "points": a.batch, "device": f"torch {torch.__version__} cpu",
        "median_ms": statistics.median(times), "min_ms": min(times), "reps": len(times),
    }))


def load_image(path):
    import numpy as np
    from PIL import Image

    img = np.asarray(Image.open(path).convert("RGB"), dtype=np.float32) / 255.0
    return torch.from_numpy(img)


def fit(a):
    torch.manual_seed(a.seed)
    img = load_image(a.image)
    h, w, c = img.shape
    ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    coords = torch.stack([(xs.flatten() + 0.5) / w, (ys.flatten() + 0.5) / h], dim=1)
    target = img.reshape(-1, c)
    finest = a.finest if a.finest > 0 else max(h, w)
    net = model(2, a.levels, a.features, a.log2_table, a.base, finest, a.width, a.depth, c)
    opt = adam(net, a.lr)
    batch = min(a.batch, h * w)
    train_s = 0.0
    reached = {}
    for it in range(1, a.steps + 1):
        t0 = time.perf_counter()
        idx = torch.randint(0, h * w, (batch,))
        step(net, opt, coords[idx], target[idx])
        train_s += time.perf_counter() - t0
        if it % a.eval_every == 0 or it == a.steps:
            with torch.no_grad():
                pred = torch.cat([net(chunk) for chunk in coords.split(1 << 16)]).clamp(0, 1)
                mse = torch.mean((pred - target) ** 2).item()
            psnr = 10 * math.log10(1.0 / max(mse, 1e-12))
            for goal in (30, 35, 38, 40):
                if psnr >= goal and goal not in reached:
                    reached[goal] = train_s
            print(json.dumps({"step": it, "train_s": round(train_s, 3), "psnr": round(psnr, 3)}),
                  flush=True)
            if a.stop_at and psnr >= a.stop_at:
                break
    print(json.dumps({"summary": True, "device": f"torch {torch.__version__} cpu",
                      "seconds_to": {str(k): round(v, 3) for k, v in reached.items()},
                      "final_psnr": round(psnr, 3), "steps": it}))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["step", "fit"])
    p.add_argument("--image")
    p.add_argument("--batch", type=int, default=1 << 16)
    p.add_argument("--levels", type=int, default=16)
    p.add_argument("--features", type=int, default=2)
    p.add_argument("--log2-table", type=int, default=18)
    p.add_argument("--base", type=float, default=16)
    p.add_argument("--finest", type=float, default=0, help="0: the image's longer side (fit), 512 (step)")
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--depth", type=int, default=2)
    p.add_argument("--outputs", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--eval-every", type=int, default=10)
    p.add_argument("--stop-at", type=float, default=0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=0)
    a = p.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    if a.mode == "step":
        if a.finest <= 0:
            a.finest = 512
        time_step(a)
    else:
        if not a.image:
            p.error("fit needs --image")
        fit(a)


if __name__ == "__main__":
    main()
