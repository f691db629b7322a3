"""Iron Learn's `mlp` with its defaults against scikit-learn on tables as people have them.

Each table is split 75/25 (`train_test_split(test_size=0.25, random_state=0)`) into two CSV
files; `iron-learn mlp --data train.csv --test-data test.csv --target T` trains on the first
and scores the second, and scikit-learn's usual pipeline (see README.md beside this file)
trains LogisticRegression or Ridge, and an MLP (64, 64) for 200 epochs, on the same rows.
Prints one row per table: test accuracy or R^2 and wall time of each.

usage: python3 sklearn_tables.py IRON_LEARN_BINARY (TABLES_DIR | --generate) [--ours-only]
       [-- EXTRA MLP ARGS]

--generate benchmarks on two tables made here (text levels, yes/no words, missing cells,
labels as words) instead of published ones.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

TABLES = [
    # file, target, task
    ("loans.csv", "interest_rate", "regression"),
    ("mortgage_denials.csv", "deny", "classification"),
    ("wage.csv", "wage", "regression"),
    ("carseats.csv", "Sales", "regression"),
    ("generated_prices.csv", "price", "regression"),
    ("generated_churn.csv", "churn", "classification"),
]


def generate(folder, rows=5000, seed=0):
    """Two mixed tables: a price from a size, a grade and a city; churn from usage and a plan."""
    rng = np.random.default_rng(seed)
    size = rng.normal(80, 25, rows).round(1)
    grade = rng.choice(list("ABCDE"), rows)
    city = rng.choice([f"city {i}" for i in range(40)], rows)
    garden = rng.choice(["yes", "no"], rows)
    price = 2.5 * size + 30 * (grade == "A") - 20 * (grade == "E") + 15 * (garden == "yes")
    price = price + np.array([int(c.split()[1]) % 7 for c in city]) * 3 + rng.normal(0, 10, rows)
    size_text = size.astype(str)
    size_text[rng.random(rows) < 0.05] = "NA"
    pd.DataFrame(
        {"size": size_text, "grade": grade, "city": city, "garden": garden, "price": price.round(2)}
    ).to_csv(os.path.join(folder, "generated_prices.csv"), index=False)
    usage = rng.exponential(10, rows).round(2)
    plan = rng.choice(["basic", "plus", "pro"], rows)
    logit = 1.5 - 0.25 * usage + 1.0 * (plan == "basic") - 0.8 * (plan == "pro")
    churn = np.where(rng.random(rows) < 1 / (1 + np.exp(-logit)), "left", "stayed")
    pd.DataFrame({"customer": [f"C{i:06d}" for i in range(rows)], "usage": usage, "plan": plan, "churn": churn}).to_csv(
        os.path.join(folder, "generated_churn.csv"), index=False
    )


def sklearn_pipeline(x):
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    numbers = x.select_dtypes(include="number").columns
    text = [c for c in x.columns if c not in numbers]
    return ColumnTransformer(
        [
            ("num", make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), numbers),
            (
                "cat",
                make_pipeline(
                    SimpleImputer(strategy="most_frequent"),
                    OneHotEncoder(handle_unknown="ignore", min_frequency=5),
                ),
                text,
            ),
        ]
    )


def run_sklearn(train, test, target, task):
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.metrics import accuracy_score, r2_score
    from sklearn.neural_network import MLPClassifier, MLPRegressor
    from sklearn.pipeline import make_pipeline

    xtr, ytr = train.drop(columns=[target]), train[target]
    xte, yte = test.drop(columns=[target]), test[target]
    score = accuracy_score if task == "classification" else r2_score
    if task == "classification":
        models = [LogisticRegression(max_iter=1000), MLPClassifier(hidden_layer_sizes=(64, 64), max_iter=200, random_state=0)]
    else:
        models = [Ridge(), MLPRegressor(hidden_layer_sizes=(64, 64), max_iter=200, random_state=0)]
    out = []
    for model in models:
        start = time.perf_counter()
        pipe = make_pipeline(sklearn_pipeline(xtr), model)
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pipe.fit(xtr, ytr)
        out.append((score(yte, pipe.predict(xte)), time.perf_counter() - start))
    return out


def run_ours(binary, train_path, test_path, target, extra, out_dir):
    start = time.perf_counter()
    cmd = [binary, "mlp", "--data", train_path, "--test-data", test_path, "--target", target]
    cmd += ["-o", out_dir, "--force", "-q", "--device", "cpu"] + extra
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    with open(os.path.join(out_dir, "metrics.json")) as f:
        m = json.load(f)
    return m.get("test_accuracy", m.get("test_r2")), seconds


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1 :]
        args = args[: args.index("--")]
    ours_only = "--ours-only" in args
    args = [a for a in args if a != "--ours-only"]
    binary, tables = args[0], args[1]
    from sklearn.model_selection import train_test_split

    if tables == "--generate":
        tables = tempfile.mkdtemp()
        generate(tables)

    print(f"{'table':<18} {'measure':<9} {'iron-learn mlp':>20} {'linear':>18} {'MLP (64, 64)':>18}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, target, task in TABLES:
            path = os.path.join(tables, name)
            only = os.environ.get("TABLES_ONLY")
            if not os.path.exists(path) or (only and only not in name):
                continue
            frame = pd.read_csv(path)
            train, test = train_test_split(frame, test_size=0.25, random_state=0)
            train_path = os.path.join(tmp, "train_" + name)
            test_path = os.path.join(tmp, "test_" + name)
            train.to_csv(train_path, index=False)
            test.to_csv(test_path, index=False)
            ours = run_ours(binary, train_path, test_path, target, extra, os.path.join(tmp, "run"))
            measure = "accuracy" if task == "classification" else "R^2"
            cells = [f"{ours[0]:.4f} ({ours[1]:.1f} s)"]
            if not ours_only:
                cells += [f"{s:.4f} ({t:.1f} s)" for s, t in run_sklearn(train, test, target, task)]
            print(f"{name:<18} {measure:<9} " + " ".join(f"{c:>18}" for c in cells), flush=True)


if __name__ == "__main__":
    np.random.seed(0)
    main()
