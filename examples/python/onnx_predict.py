#!/usr/bin/env python3
"""Predict the rows of a CSV table with an exported iron-learn ONNX graph, in onnxruntime.

    python3 onnx_predict.py MODEL.onnx DATA.csv [-o predictions.csv]

MODEL.onnx comes from `iron-learn export RUN --format onnx`. The graph of a table model takes
one input per raw column, named as the column, each of shape [N, 1] (see "ONNX" in
docs/FORMAT.md), its type in the metadata `input_types`:

- float32 for a number, NaN for a missing cell or a cell that is not a number;
- string for a yes/no or category column, the cell as written without surrounding spaces;
- float64 for a date, the seconds from 1970-01-01 00:00 to the date and hour written (the
  clock time, no time zone applied), NaN for a missing cell.

Files exported before every table model had named inputs take one float32 input `input`
[N, features] in `feature_names` order; this script reads those too. The output CSV is the one
`iron-learn predict` writes: `prediction` (the label for a classifier, from the graph's `label`
output) and one `probability_<class>` column per class. Needs numpy and onnxruntime.
"""

import argparse
import csv
import json
import math
import sys

import numpy as np
import onnxruntime as ort

def number(cell):
    """The cell as a float32, NaN when missing or not a finite number (as the table reader)."""
    t = cell.strip()
    if not t or not (t[0].isdigit() or t[0] in "+-.") or "_" in t:
        return math.nan
    try:
        v = float(np.float32(float(t)))
    except (ValueError, OverflowError):
        return math.nan
    return v if math.isfinite(v) else math.nan


def seconds(cell):
    """An ISO date or date-time as float64 seconds of its date and hour, NaN if not one."""
    text = cell.strip()
    try:
        day = np.datetime64(text[:10], "D")
    except ValueError:
        return math.nan
    if str(day) != text[:10]:
        return math.nan
    hour = int(text[11:13]) if len(text) > 12 and text[10] in "T " else 0
    return float(day.astype("int64")) * 86400.0 + hour * 3600.0


def feeds(session, header, rows):
    """One array per graph input, from the table's columns of the same name."""
    listed = json.loads(session.get_modelmeta().custom_metadata_map.get("input_types", "[]"))
    types = {c["name"]: c["type"] for c in listed}
    out = {}
    for i in session.get_inputs():
        if i.name in ("input", "coordinates") and i.name not in header:
            names = json.loads(session.get_modelmeta().custom_metadata_map["feature_names"])
            cols = [header.index(n) for n in names]
            out[i.name] = np.array([[number(r[c]) for c in cols] for r in rows], np.float32)
            continue
        if i.name not in header:
            sys.exit(f"error: the table has no column `{i.name}`, which the model reads")
        cells = [r[header.index(i.name)].strip() for r in rows]
        kind = types.get(i.name, "float32")
        if kind == "string":
            out[i.name] = np.array(cells, dtype=object).reshape(-1, 1)
        elif kind == "float64":
            out[i.name] = np.array([seconds(c) for c in cells], np.float64).reshape(-1, 1)
        else:
            out[i.name] = np.array([number(c) for c in cells], np.float32).reshape(-1, 1)
    return out


def text(v):
    """A float32 in the shortest form that reads back to the same float32."""
    return np.format_float_positional(np.float32(v), unique=True, trim="-")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("data")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    session = ort.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    with open(args.data, newline="", encoding="utf-8-sig") as f:
        sample = f.read(4096)
        f.seek(0)
        delimiter = max(",;\t", key=sample.split("\n")[0].count)
        reader = csv.reader(f, delimiter=delimiter)
        header = [h.strip() for h in next(reader)]
        rows = [r for r in reader if any(c.strip() for c in r)]
    outputs = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds(session, header, rows))))
    meta = session.get_modelmeta().custom_metadata_map
    columns = json.loads(meta["output_columns"])
    sink = sys.stdout if args.output == "-" else open(args.output, "w", newline="")
    w = csv.writer(sink, lineterminator="\n")
    if "probabilities" in outputs:
        w.writerow(["prediction"] + columns)
        labels = outputs.get("label")
        if labels is None:
            words = meta.get("class_labels")
            classes = json.loads(words) if words else [text(c) for c in json.loads(meta["classes"])]
            labels = [classes[k] for k in outputs["probabilities"].argmax(axis=1)]
        for label, p in zip(labels, outputs["probabilities"]):
            w.writerow([label] + [text(v) for v in p])
    else:
        values = outputs["prediction"]
        w.writerow(["prediction"] if len(columns) == 1 else [f"prediction_{c}" for c in columns])
        for v in values:
            w.writerow([text(x) for x in v])


if __name__ == "__main__":
    main()
