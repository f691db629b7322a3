"""Training speed early and late in a long run with weight decay (docs/BENCHMARKS.md).

usage: python3 long_run.py BINARY [BINARY ...]

Generates the 100,000-row mixed table of gen_big_table.py (once, in a temporary folder), then
runs `mlp --steps 52000` with the default model (256,256 hidden units, AdamW weight decay 2)
with each binary given, side by side in one command (one after the other, one thread each,
so the binaries compete with nothing but the host), and prints the steps per second around
step 1,000 and around step 50,000 from each run's history.csv, with the share of subnormal
floats among the trained weights. Weight decay drives dead units' weights towards zero;
arithmetic on subnormal floats is ~100x slower on x86, so a backend that keeps them slows
down late in the run.
"""
import csv, json, os, struct, subprocess, sys, tempfile

import numpy as np

STEPS = 52_000
HERE = os.path.dirname(os.path.abspath(__file__))


def rate(history, lo, hi):
    """Steps per second between the logged steps nearest lo and hi."""
    rows = [(int(r["step"]), float(r["elapsed_s"])) for r in history]
    a = min(rows, key=lambda r: abs(r[0] - lo))
    b = min(rows, key=lambda r: abs(r[0] - hi))
    return (b[0] - a[0]) / (b[1] - a[1])


def subnormal_share(path):
    """Share of the model's weights (not the optimizer's moments) that are subnormal."""
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + n])
    total = sub = 0
    for name, meta in header.items():
        if name == "__metadata__" or not name.startswith("model."):
            continue
        lo, hi = meta["data_offsets"]
        w = np.frombuffer(data[8 + n + lo : 8 + n + hi], dtype=np.float32)
        total += w.size
        sub += int(((w != 0) & (np.abs(w) < np.finfo(np.float32).tiny)).sum())
    return sub, total


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    work = tempfile.mkdtemp(prefix="long-run-")
    table = os.path.join(work, "t100k.csv")
    subprocess.run([sys.executable, os.path.join(HERE, "gen_big_table.py"), "100000", table], check=True)
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    print(f"{'binary':<40} {'steps/s @1,000':>15} {'steps/s @50,000':>16} {'ratio':>6} {'subnormal weights':>18}")
    for i, binary in enumerate(sys.argv[1:]):
        out = os.path.join(work, f"run{i}")
        cmd = [binary, "mlp", "--data", table, "--target", "y", "--steps", str(STEPS),
               "--log-every", "250", "-q", "--out", out]
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
        history = list(csv.DictReader(open(os.path.join(out, "history.csv"))))
        early, late = rate(history, 500, 1500), rate(history, 49_500, 50_500)
        sub, total = subnormal_share(os.path.join(out, "model.safetensors"))
        print(f"{binary:<40} {early:>15.0f} {late:>16.0f} {late / early:>6.2f} {sub:>9}/{total}")


if __name__ == "__main__":
    main()
