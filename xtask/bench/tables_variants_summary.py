"""The table of tables_variants.sh's runs: per table and configuration, the mean test score
over the splits and the mean seconds of one whole run; then per configuration the mean over
tables, the count within 1 point of accuracy / 0.01 R^2 of the best of linear,
HistGradientBoosting and LightGBM, and the total time against the first configuration's.

usage: python3 tables_variants_summary.py OUT_DIR label,label,...
"""

import json
import os
import sys

# The best peer's mean score minus 0.01, per table: docs/BENCHMARKS.md, "The default table
# model on 13 tables (2026-11-27)", column "best - 0.01" (the peers' figures do not change).
WITHIN = {"loans": 0.9887, "mortgage_denials": 0.8949, "wage": 0.3115, "carseats": 0.8382,
          "churn": 0.9511, "orange_juice": 0.8333, "hpc_jobs": 0.8327, "default": 0.9633,
          "concrete": 0.9130, "college": 0.4295, "hotel_rates": 0.9431, "car_prices": 0.9310,
          "panel_wages": 0.5419}


def main():
    out, labels = sys.argv[1], sys.argv[2].split(",")
    res = {}
    for label in labels:
        for table in WITHIN:
            path = os.path.join(out, f"{label}.{table}.csv.json")
            if os.path.exists(path):
                with open(path) as f:
                    row = json.load(f)[0]
                res[(label, table)] = (row["ours"][0], row["ours"][1])
    done = [t for t in WITHIN if all((lb, t) in res for lb in labels)]
    if not done:
        print("no table has every configuration yet")
        return
    print("| table | " + " | ".join(labels) + " |")
    print("| --- " * (len(labels) + 1) + "|")
    for t in done:
        cells = []
        for lb in labels:
            score, secs = res[(lb, t)]
            cells.append(f"{score:.4f} ({secs:.1f} s)" + ("" if score >= WITHIN[t] else " **no**"))
        print(f"| {t} | " + " | ".join(cells) + " |")
    base = sum(res[(labels[0], t)][1] for t in done)
    for lb in labels:
        scores = [res[(lb, t)][0] for t in done]
        secs = sum(res[(lb, t)][1] for t in done)
        within = sum(res[(lb, t)][0] >= WITHIN[t] for t in done)
        print(f"{lb}: mean {sum(scores) / len(scores):.4f}, within {within} of {len(done)}, "
              f"{secs:.1f} s in all ({secs / base:.2f}x {labels[0]})")


if __name__ == "__main__":
    main()
