"""Reference GPU timings in PyTorch for the CUDA benchmarks of docs/BENCHMARKS.md.

Times, with CUDA events after warm-up (median of the repetitions), on one GPU:

- `siren`: one SIREN training step (forward, backward, Adam) of WIDTHxDEPTH on N coordinates,
  eager and `torch.compile`d;
- `hashgrid`: one hash-grid training step (16 levels x 2 features, T = 2^18, resolutions 16
  to 512, a ReLU MLP, MSE, Adam), eager and compiled;
- `table-csv`: writes such a table as CSV (for `iron-learn mlp` on the same kind of rows);
- `tabular`: a ReLU MLP regression trained for E epochs of batch B on a table of R rows x F
  standardised numeric features (the whole epoch loop timed, data already on the GPU).

Prints one JSON object per measurement. float32 throughout, TF32 off.
"""
import argparse
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_hashgrid import adam, model as hashgrid_model  # noqa: E402
from torch_train import siren  # noqa: E402


def time_steps(step, reps, warmup=5):
    """Median and minimum milliseconds of `step()`, timed with CUDA events after warm-up."""
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times), min(times)


def mse_step(net, opt, x, y):
    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
    return step


def report(kind, mode, spec, points, med, best, reps):
    print(json.dumps({"bench": kind, "mode": mode, "network": spec, "points": points,
                      "device": f"torch {torch.__version__} {torch.cuda.get_device_name()}",
                      "median_ms": round(med, 4), "min_ms": round(best, 4), "reps": reps}),
          flush=True)


def bench_siren(a):
    gen = torch.Generator().manual_seed(7)
    x = (torch.rand(a.points, 2, generator=gen) * 2 - 1).cuda()
    y = torch.rand(a.points, 1, generator=gen).cuda()
    width, depth = (int(v) for v in a.hidden.lower().split("x"))
    for mode in ("eager", "compile"):
        torch.manual_seed(0)
        net = siren(width, depth).cuda()
        opt = torch.optim.Adam(net.parameters(), lr=1e-4)
        fwd = torch.compile(net) if mode == "compile" else net
        med, best = time_steps(mse_step(fwd, opt, x, y), a.reps, warmup=20 if mode == "compile" else 5)
        report("siren", mode, a.hidden, a.points, med, best, a.reps)


def bench_hashgrid(a):
    gen = torch.Generator().manual_seed(7)
    x = torch.rand(a.points, 2, generator=gen).cuda()
    y = torch.rand(a.points, 3, generator=gen).cuda()
    width, depth = (int(v) for v in a.hidden.lower().split("x"))
    for mode in ("eager", "compile"):
        torch.manual_seed(0)
        net = hashgrid_model(2, 16, 2, 18, 16, 512, width, depth, 3).cuda()
        opt = adam(net, 1e-2)
        fwd = torch.compile(net) if mode == "compile" else net
        try:
            med, best = time_steps(mse_step(fwd, opt, x, y), a.reps,
                                   warmup=20 if mode == "compile" else 5)
        except Exception as e:  # torch.compile can fail on a host without a compiler
            print(json.dumps({"bench": "hashgrid", "mode": mode, "error": str(e)[:200]}))
            continue
        report("hashgrid", mode, f"L16 F2 T2^18 mlp {a.hidden}", a.points, med, best, a.reps)


def bench_tabular(a):
    gen = torch.Generator().manual_seed(7)
    x = torch.randn(a.rows, a.features, generator=gen).cuda()
    w = torch.randn(a.features, 1, generator=gen).cuda()
    y = torch.tanh(x @ w / a.features ** 0.5) + 0.1 * torch.randn(a.rows, 1, generator=gen).cuda()
    widths = [int(v) for v in a.hidden.split(",")]
    layers, fan_in = [], a.features
    for width in widths:
        layers += [torch.nn.Linear(fan_in, width), torch.nn.ReLU()]
        fan_in = width
    layers.append(torch.nn.Linear(fan_in, 1))
    net = torch.nn.Sequential(*layers).cuda()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)

    def train():
        for _ in range(a.epochs):
            order = torch.randperm(a.rows, device="cuda")
            for i in range(0, a.rows, a.batch):
                idx = order[i:i + a.batch]
                mse_step(net, opt, x[idx], y[idx])()

    med, best = time_steps(train, 3, warmup=1)
    with torch.no_grad():
        mse = torch.nn.functional.mse_loss(net(x), y).item()
    report("tabular", "eager", f"{a.hidden} {a.epochs} epochs batch {a.batch}",
           a.rows, med, best, 3)
    print(json.dumps({"bench": "tabular", "train_mse": mse}))


def write_table(a):
    """Writes the tabular benchmark's kind of table as CSV (columns x0..x{F-1}, y) to a.csv."""
    gen = torch.Generator().manual_seed(7)
    x = torch.randn(a.rows, a.features, generator=gen)
    w = torch.randn(a.features, 1, generator=gen)
    y = torch.tanh(x @ w / a.features ** 0.5) + 0.1 * torch.randn(a.rows, 1, generator=gen)
    with open(a.csv, "w") as f:
        f.write(",".join([f"x{i}" for i in range(a.features)] + ["y"]) + "\n")
        for row in torch.cat([x, y], dim=1).tolist():
            f.write(",".join(f"{v:.6g}" for v in row) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bench", choices=["siren", "hashgrid", "tabular", "table-csv"])
    p.add_argument("--hidden", default=None)
    p.add_argument("--points", type=int, default=None)
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--features", type=int, default=20)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--csv", default="table.csv")
    a = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if a.bench == "siren":
        a.hidden, a.points = a.hidden or "256x3", a.points or 40_000
        bench_siren(a)
    elif a.bench == "hashgrid":
        a.hidden, a.points = a.hidden or "64x2", a.points or (1 << 18)
        bench_hashgrid(a)
    elif a.bench == "table-csv":
        write_table(a)
    else:
        a.hidden = a.hidden or "64,64"
        bench_tabular(a)


if __name__ == "__main__":
    main()
