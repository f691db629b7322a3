"""A large mixed table for the memory and speed check of docs/BENCHMARKS.md.

usage: python3 gen_big_table.py ROWS OUT.csv
"""
import numpy as np, pandas as pd, sys
rows = int(sys.argv[1]); rng = np.random.default_rng(0)
cols = {}
y = np.zeros(rows)
for i in range(20):
    v = rng.normal(0, 1, rows)
    y += (0.5 if i < 5 else 0.05) * v
    t = np.round(v, 3).astype(str)
    if i % 4 == 0:
        t[rng.random(rows) < 0.02] = "NA"
    cols[f"num{i}"] = t
for i, k in enumerate([3, 7, 12, 50]):
    lv = rng.integers(0, k, rows)
    y += 0.3 * (lv % 3)
    cols[f"cat{i}"] = np.char.add(f"level", lv.astype(str))
cols["title"] = np.char.add("title ", rng.integers(0, 50000, rows).astype(str))
for i in range(3):
    b = rng.random(rows) < 0.4
    y += 0.2 * b
    cols[f"flag{i}"] = np.where(b, "yes", "no")
cols["day"] = (np.datetime64("2020-01-01") + rng.integers(0, 1500, rows)).astype(str)
cols["id"] = np.char.add("row", np.arange(rows).astype(str))
cols["y"] = np.round(y + rng.normal(0, 0.3, rows), 4)
pd.DataFrame(cols).to_csv(sys.argv[2], index=False)
