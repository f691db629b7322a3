"""Configurations of `iron-learn mlp` side by side on the 13 development tables.

Each table is split as `tables_peers.py` splits it (75/25, `random_state` 0, 1, 2); every
configuration runs on the same two files before the next split is written, in alternating
order, so that a machine's load falls on all of them alike. A configuration is a binary, extra
arguments and extra environment variables, given as a JSON list:

    [{"name": "old", "bin": "old/iron-learn"},
     {"name": "new", "bin": "target/release/iron-learn", "args": ["--hidden", "128x3"]}]

A configuration with `"as_user": true` runs as a user runs it: `mlp --data train.csv` with
no test file, then `predict` on the test rows, scored by the script.

Prints, per table, each configuration's mean test score (a `*` when it is more than 1 point /
0.01 R^2 below the best of linear, HistGradientBoosting and LightGBM as docs/BENCHMARKS.md
measured them) with its mean time per run and the model kept on each split; then, per
configuration, the mean over tables, the count within, the total time and the first
configuration's total time divided by it. Scores are deterministic: only the times vary.

usage: python3 tables_side_by_side.py CONFIGS.json RESULTS.json [TABLES_DIR [LIST.json]]
LIST.json: the tables as a JSON list of {"file", "target", "task"} (heldout_tables.py writes
one), instead of the 13 development tables; a table of no known peer score is not starred.
environment: TABLES_ONLY=a,b keeps the tables whose file name contains one of the words;
BIN is the binary of a configuration that names none (default target/release/iron-learn).
"""

import io
import json
import os
import subprocess
import sys
import tempfile
import time

import pandas as pd
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tables_peers import run_ours, table_list  # noqa: E402

# The best of linear, HistGradientBoosting and LightGBM less 0.01, per table (three splits'
# mean, docs/BENCHMARKS.md "The default table model on 13 tables").
NEEDED = {"loans.csv": .9887, "mortgage_denials.csv": .8949, "wage.csv": .3115,
          "carseats.csv": .8382, "churn.csv": .9511, "orange_juice.csv": .8333,
          "hpc_jobs.csv": .8327, "default.csv": .9633, "concrete.csv": .9130,
          "college.csv": .4295, "hotel_rates.csv": .9431, "car_prices.csv": .9310,
          "panel_wages.csv": .5419}
BINARY = os.environ.get("BIN", "target/release/iron-learn")


def run(config, train_path, test_path, target, out_dir):
    """One configuration on one split: (test score, seconds of the whole command, kept)."""
    if config.get("as_user"):
        return run_as_user(config, train_path, test_path, target, out_dir)
    return run_ours(config.get("bin", BINARY), train_path, test_path, target,
                    config.get("args", []), out_dir, config.get("env", {}))


def run_as_user(config, train_path, test_path, target, out_dir):
    """A configuration of `"as_user": true`, run as a user runs it: `mlp --data train.csv`
    (no test file: the tool holds out what its options say), then `predict` on the test
    rows without their target, scored here (accuracy on the labels' text, or R²)."""
    binary = config.get("bin", BINARY)
    start = time.perf_counter()
    cmd = [binary, "mlp", "--data", train_path, "--target", target, "-o", out_dir, "--force",
           "-q", "--device", "cpu"] + config.get("args", [])
    env = {**os.environ, **config.get("env", {})}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    test = pd.read_csv(test_path, low_memory=False)
    rows = test_path + ".rows.csv"
    test.drop(columns=target).to_csv(rows, index=False)
    answers = subprocess.run([binary, "predict", out_dir, "--data", rows], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0 or answers.returncode != 0:
        print(f"  iron-learn failed: {done.stderr.strip()} {answers.stderr.strip()}", file=sys.stderr)
        return float("nan"), seconds, ""
    predicted = pd.read_csv(io.StringIO(answers.stdout), dtype={"prediction": str})["prediction"]
    kept = json.load(open(os.path.join(out_dir, "metrics.json"))).get("model_kept", "")
    if "probability_" in answers.stdout.split("\n", 1)[0]:
        truth = test[target].astype(str).str.strip()
        return float((predicted.to_numpy() == truth.to_numpy()).mean()), seconds, kept
    return float(r2_score(test[target].astype(float), predicted.astype(float))), seconds, kept


def mean(values):
    return sum(values) / len(values)


def table_line(name, configs, results):
    line = f"{name:<22}"
    for c in configs:
        runs = results[c["name"]][name]
        score = mean([r[0] for r in runs])
        flag = "" if score >= NEEDED.get(name, score) else "*"
        kept = ",".join(r[2][:3] for r in runs)
        line += f" | {c['name']}: {score:.4f}{flag:1} {mean([r[1] for r in runs]):5.1f} s {kept}"
    return line


def summary(configs, results):
    first = sum(r[1] for runs in results[configs[0]["name"]].values() for r in runs)
    for c in configs:
        tables = results[c["name"]]
        scores = {k: mean([r[0] for r in runs]) for k, runs in tables.items()}
        within = sum(1 for k, s in scores.items() if s >= NEEDED.get(k, s))
        total = sum(r[1] for runs in tables.values() for r in runs)
        print(f"{c['name']:<24} mean {mean(list(scores.values())):.4f}  within {within} of "
              f"{len(scores)}  total {total:7.1f} s  {first / total:.2f}x faster than {configs[0]['name']}")


def main():
    configs = json.load(open(sys.argv[1]))
    results_path = sys.argv[2]
    tables = sys.argv[3] if len(sys.argv) > 3 else "../shared/tables"
    listing = table_list(sys.argv[4] if len(sys.argv) > 4 else None)
    only = [w for w in os.environ.get("TABLES_ONLY", "").split(",") if w]
    results = {c["name"]: {} for c in configs}
    with tempfile.TemporaryDirectory() as tmp:
        for name, target, _task in listing:
            if only and not any(w in name for w in only):
                continue
            frame = pd.read_csv(os.path.join(tables, name), low_memory=False)
            frame = frame[frame[target].notna()]
            for s in range(3):
                train, test = train_test_split(frame, test_size=0.25, random_state=s)
                tr, te = os.path.join(tmp, "train_" + name), os.path.join(tmp, "test_" + name)
                train.to_csv(tr, index=False)
                test.to_csv(te, index=False)
                for c in configs if s % 2 == 0 else configs[::-1]:
                    got = run(c, tr, te, target, os.path.join(tmp, "run"))
                    results[c["name"]].setdefault(name, []).append(got)
            print(table_line(name, configs, results), flush=True)
            with open(results_path, "w") as f:
                json.dump(results, f, indent=1)
    summary(configs, results)


if __name__ == "__main__":
    main()
