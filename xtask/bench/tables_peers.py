"""Iron Learn's default table model against linear models and boosted trees, on 13 tables.

Each table (rows with a missing target dropped first) is split 75/25 three times,
`train_test_split(frame, test_size=0.25, random_state=s)` for s = 0, 1, 2, into two CSV files;
`iron-learn mlp --data train.csv --test-data test.csv --target T` (plus any extra arguments)
trains on the first and scores the second. On the same rows: scikit-learn's linear pipeline
(LogisticRegression / Ridge), HistGradientBoosting and LightGBM with its defaults, configured
as README.md beside this file says. The peers' figures are cached in a JSON file (they do not
change from run to run of ours); RealMLP-TD / TabM-D run only where pytabkit is installed.

Prints, per table, the mean test accuracy or R^2 over the three splits and the mean time of
one fit (ours: the whole command), whether ours is within 1 point / 0.01 R^2 of the best of
linear, HistGradientBoosting and LightGBM, and a summary; `--markdown FILE` also writes the
table as Markdown.

usage: python3 tables_peers.py IRON_LEARN_BINARY TABLES_DIR [--cache FILE] [--markdown FILE]
       [--json FILE] [--splits N] [--device cpu|cuda] [--tables LIST.json] [--ours-only]
       [--peers-only] [-- EXTRA MLP ARGS]
--tables reads the tables from a JSON list of {"file", "target", "task"} (as
heldout_tables.py writes it) instead of the 13 development tables.
--ours-only runs no peer: only the cached peers' figures are shown beside ours.
--device picks the device ours trains on (default cpu).
environment: TABLES_ONLY=a,b keeps the tables whose file name contains one of the words;
PEERS_SKIP=tabm_d,hgb leaves those peers out; PEERS_DEVICE=cuda fits RealMLP-TD / TabM-D on the
GPU (their scores only: the 2-core timings are on the CPU).
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import pandas as pd

TABLES = [
    # file, target, task
    ("loans.csv", "interest_rate", "regression"),
    ("mortgage_denials.csv", "deny", "classification"),
    ("wage.csv", "wage", "regression"),
    ("carseats.csv", "Sales", "regression"),
    ("churn.csv", "churn", "classification"),
    ("orange_juice.csv", "Purchase", "classification"),
    ("hpc_jobs.csv", "class", "classification"),
    ("default.csv", "default", "classification"),
    ("concrete.csv", "compressive_strength", "regression"),
    ("college.csv", "Grad.Rate", "regression"),
    ("hotel_rates.csv", "avg_price_per_room", "regression"),
    ("car_prices.csv", "Price", "regression"),
    ("panel_wages.csv", "lwage", "regression"),
]
PEERS = ["linear", "hgb", "lightgbm"]
OPTIONAL_PEERS = ["realmlp_td", "tabm_d"]


def text_columns(x):
    """The non-numeric columns, less the identifier-like ones (a distinct value in > 90% of rows)."""
    numbers = set(x.select_dtypes(include="number").columns)
    text = [c for c in x.columns if c not in numbers]
    ids = [c for c in text if x[c].nunique() > 0.9 * len(x)]
    return [c for c in x.columns if c in numbers], [c for c in text if c not in ids], ids


def one_hot():
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    return make_pipeline(
        SimpleImputer(strategy="most_frequent"),
        OneHotEncoder(handle_unknown="ignore", min_frequency=5),
    )


def peer_model(name, x, task):
    """The pipeline of one peer, from the training frame."""
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    numbers, text, _ = text_columns(x)
    classify = task == "classification"
    if name == "linear":
        from sklearn.linear_model import LogisticRegression, Ridge

        prep = ColumnTransformer(
            [("num", make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), numbers), ("cat", one_hot(), text)]
        )
        return make_pipeline(prep, LogisticRegression(max_iter=2000) if classify else Ridge())
    if name == "hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

        prep = ColumnTransformer([("num", "passthrough", numbers), ("cat", one_hot(), text)], sparse_threshold=0)
        model = HistGradientBoostingClassifier if classify else HistGradientBoostingRegressor
        return make_pipeline(prep, model(random_state=0))
    raise ValueError(name)


def fit_lightgbm(xtr, ytr, xte, task):
    import lightgbm as lgb

    _, text, ids = text_columns(xtr)
    xtr, xte = xtr.drop(columns=ids), xte.drop(columns=ids)
    for c in text:
        cats = pd.CategoricalDtype(sorted(xtr[c].dropna().unique()))
        xtr[c], xte[c] = xtr[c].astype(cats), xte[c].astype(cats)
    model = (lgb.LGBMClassifier if task == "classification" else lgb.LGBMRegressor)(verbose=-1, random_state=0)
    model.fit(xtr, ytr)
    return model.predict(xte)


def fit_pytabkit(name, xtr, ytr, xte, task):
    import pytabkit

    kind = {"realmlp_td": "RealMLP_TD", "tabm_d": "TabM_D"}[name]
    cls = getattr(pytabkit, f"{kind}_{'Classifier' if task == 'classification' else 'Regressor'}")
    numbers, text, ids = text_columns(xtr)
    xtr, xte = xtr.drop(columns=ids), xte.drop(columns=ids)
    for c in numbers:
        if xtr[c].isna().any():
            med = xtr[c].median()
            xtr[c + "_missing"], xte[c + "_missing"] = xtr[c].isna() * 1.0, xte[c].isna() * 1.0
            xtr[c], xte[c] = xtr[c].fillna(med), xte[c].fillna(med)
    for c in text:
        cats = pd.CategoricalDtype(sorted(xtr[c].dropna().unique()))
        xtr[c], xte[c] = xtr[c].astype(cats), xte[c].astype(cats)
    model = cls(random_state=0, n_threads=2, device=os.environ.get("PEERS_DEVICE", "cpu"))
    model.fit(xtr, ytr)
    return model.predict(xte)


def run_peer(name, train, test, target, task):
    from sklearn.metrics import accuracy_score, r2_score

    xtr, ytr = train.drop(columns=[target]), train[target]
    xte, yte = test.drop(columns=[target]), test[target]
    score = accuracy_score if task == "classification" else r2_score
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "lightgbm":
            predicted = fit_lightgbm(xtr.copy(), ytr, xte.copy(), task)
        elif name in OPTIONAL_PEERS:
            predicted = fit_pytabkit(name, xtr.copy(), ytr, xte.copy(), task)
        else:
            pipe = peer_model(name, xtr, task)
            pipe.fit(xtr, ytr)
            predicted = pipe.predict(xte)
    seconds = time.perf_counter() - start
    return float(score(yte, predicted)), seconds


def run_ours(binary, train_path, test_path, target, extra, out_dir, env=None, device="cpu"):
    """`iron-learn mlp` on one split (extra arguments and environment variables added) on
    `device`: (test score, seconds of the whole command, model kept)."""
    start = time.perf_counter()
    cmd = [binary, "mlp", "--data", train_path, "--test-data", test_path, "--target", target]
    cmd += ["-o", out_dir, "--force", "-q", "--device", device] + extra
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=None if env is None else {**os.environ, **env})
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        print(f"  iron-learn failed: {done.stderr.strip()}", file=sys.stderr)
        return float("nan"), seconds, ""
    with open(os.path.join(out_dir, "metrics.json")) as f:
        m = json.load(f)
    return m.get("test_accuracy", m.get("test_r2")), seconds, m.get("model_kept", "")


def pytabkit_available():
    try:
        import pytabkit  # noqa: F401

        return True
    except ImportError:
        return False


def table_list(listing):
    """(file, target, task) of the tables: the development tables, or those of a JSON list."""
    if listing is None:
        return TABLES
    with open(listing) as f:
        return [(t["file"], t["target"], t["task"]) for t in json.load(f)]


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1 :]
        args = args[: args.index("--")]

    def option(flag, default=None):
        if flag in args:
            i = args.index(flag)
            value = args[i + 1]
            del args[i : i + 2]
            return value
        return default

    cache_path = option("--cache")
    markdown = option("--markdown")
    json_path = option("--json")
    splits = int(option("--splits", "3"))
    device = option("--device", "cpu")
    listing = option("--tables")
    ours_only = "--ours-only" in args
    peers_only = "--peers-only" in args
    args = [a for a in args if a not in ("--ours-only", "--peers-only")]
    binary, tables = args[0], args[1]
    from sklearn.model_selection import train_test_split

    cache = {}
    if cache_path and os.path.exists(cache_path):
        with open(cache_path) as f:
            cache = json.load(f)
    skip = [w for w in os.environ.get("PEERS_SKIP", "").split(",") if w]
    peers = [p for p in PEERS + (OPTIONAL_PEERS if pytabkit_available() else []) if p not in skip]
    if skip:
        print(f"note: skipped as asked (PEERS_SKIP): {', '.join(skip)}")
    if not ours_only and not pytabkit_available():
        print("note: pytabkit is not installed: RealMLP-TD / TabM-D skipped (README.md of the tables gives RealMLP-TD's figures)")
    only = [w for w in os.environ.get("TABLES_ONLY", "").split(",") if w]
    rows = []
    header = f"{'table':<22} {'ours':>16} " + " ".join(f"{p:>16}" for p in peers) + "  within  kept"
    print(header, flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, target, task in table_list(listing):
            path = os.path.join(tables, name)
            if not os.path.exists(path) or (only and not any(w in name for w in only)):
                continue
            frame = pd.read_csv(path, low_memory=False)
            frame = frame[frame[target].notna()]
            ours, peer = [], {p: [] for p in peers}
            kept = []
            for s in range(splits):
                train, test = train_test_split(frame, test_size=0.25, random_state=s)
                if not peers_only:
                    tr, te = os.path.join(tmp, "train_" + name), os.path.join(tmp, "test_" + name)
                    train.to_csv(tr, index=False)
                    test.to_csv(te, index=False)
                    score, secs, k = run_ours(binary, tr, te, target, extra, os.path.join(tmp, "run"),
                                                device=device)
                    ours.append((score, secs))
                    kept.append(k)
                for p in peers:
                    key = f"{name}/{p}/{s}"
                    if key not in cache and ours_only:
                        continue
                    if key not in cache:
                        cache[key] = run_peer(p, train, test, target, task)
                        if cache_path:
                            with open(cache_path, "w") as f:
                                json.dump(cache, f, indent=1)
                    peer[p].append(cache[key])
            peer = {p: v for p, v in peer.items() if len(v) == splits}
            mean = lambda v: (float(np.mean([a for a, _ in v])), float(np.mean([b for _, b in v]))) if v else None
            row = {"table": name, "task": task, "ours": mean(ours), "kept": kept}
            row.update({p: mean(v) for p, v in peer.items()})
            row["ours_splits"] = ours
            best = max((row[p][0] for p in PEERS if row.get(p)), default=None)
            tol = 0.01
            row["within"] = None if best is None or row["ours"] is None else row["ours"][0] >= best - tol
            rows.append(row)
            cell = lambda v: f"{v[0]:.4f} ({v[1]:5.1f} s)" if v else "-"
            flag = {None: "", True: "yes", False: "NO"}[row["within"]]
            print(f"{name:<22} {cell(row['ours']):>16} " + " ".join(f"{cell(row.get(p)):>16}" for p in peers) + f"  {flag:>6}  {','.join(sorted(set(kept)))}", flush=True)
    peers = [p for p in peers if any(r.get(p) for r in rows)]
    summary(rows, peers)
    if json_path:
        with open(json_path, "w") as f:
            json.dump(rows, f, indent=1)
    if markdown:
        write_markdown(markdown, rows, peers, extra, splits)


def summary(rows, peers):
    scored = [r for r in rows if r["ours"] is not None]
    if not scored:
        return
    within = sum(1 for r in scored if r["within"])
    print(f"ours within 1 point / 0.01 R^2 of the best of {', '.join(PEERS)}: {within} of {len(scored)}")
    print(f"mean score over tables: ours {np.mean([r['ours'][0] for r in scored]):.4f}", end="")
    for p in peers:
        if all(r.get(p) for r in scored) and p in peers:
            print(f", {p} {np.mean([r[p][0] for r in scored]):.4f}", end="")
    print(f"; mean time per run: ours {np.mean([r['ours'][1] for r in scored]):.2f} s")


def write_markdown(path, rows, peers, extra, splits):
    names = {"linear": "scikit-learn linear", "hgb": "HistGradientBoosting", "lightgbm": "LightGBM",
             "realmlp_td": "RealMLP-TD", "tabm_d": "TabM-D"}
    cell = lambda v: f"{v[0]:.4f} ({v[1]:.1f} s)" if v else "-"
    lines = [
        f"| table | iron-learn mlp{(' ' + ' '.join(extra)) if extra else ''} (whole run) | "
        + " | ".join(f"{names[p]} (fit)" for p in peers) + " | within | kept |",
        "| --- " * (len(peers) + 4) + "|",
    ]
    for r in rows:
        flag = {None: "", True: "yes", False: "**no**"}[r["within"]]
        lines.append(f"| {r['table']} | {cell(r['ours'])} | " + " | ".join(cell(r.get(p)) for p in peers)
                     + f" | {flag} | {', '.join(sorted(set(r['kept'])))} |")
    with open(path, "w") as f:
        f.write(f"Mean over {splits} splits (random_state 0..{splits - 1}).\n\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    np.random.seed(0)
    main()
