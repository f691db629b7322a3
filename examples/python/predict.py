#!/usr/bin/env python3
"""Predict with an iron-learn model in numpy, rebuilt from docs/FORMAT.md alone.

    python3 predict.py MODEL DATA.csv [-o predictions.csv]

MODEL is a model.safetensors (a run checkpoint or a file written by `iron-learn export
--format safetensors`) or a run folder. DATA is a CSV file with a header; its columns are
matched to the model's input columns by name (others are ignored). A model trained on a
table with text, yes/no, date or missing cells stores its preprocessing, which this script
applies to the raw cells (see "Preprocessing" in docs/FORMAT.md). The output is the CSV that
`iron-learn predict` writes: a `prediction` column and, for classifiers, one
`probability_<class>` column per class. Needs numpy and safetensors only. The arithmetic is
done in float64, so it also serves as a reference for the float32 Rust implementation.
"""

import argparse
import csv
import json
import os
import sys

import numpy as np
from safetensors import safe_open


def load(path):
    """The metadata (architecture and model description) and the tensors of a model file."""
    if os.path.isdir(path):
        path = os.path.join(path, "model.safetensors")
    with safe_open(path, "np") as f:
        meta = json.loads(f.metadata()["iron_learn"])
        tensors = {k: f.get_tensor(k).astype(np.float64) for k in f.keys() if k.startswith("model.")}
    return meta, tensors


def activation(spec, z):
    kind = spec["kind"]
    if kind == "identity":
        return z
    if kind == "relu":
        return np.maximum(z, 0.0)
    if kind == "leaky_relu":
        return np.where(z >= 0.0, z, spec["alpha"] * z)
    if kind == "tanh":
        return np.tanh(z)
    if kind == "sigmoid":
        return 1.0 / (1.0 + np.exp(-z))
    if kind == "sine":
        return np.sin(spec["w0"] * z)
    raise SystemExit(f"error: unknown activation {kind!r}")


HASH_PRIMES = [1, 2654435761, 805459861]
MAX_RESOLUTION = 1 << 24


def hash_grid_levels(arch):
    """(resolution, table size, hashed) of every level of a hash-grid network."""
    levels, base, d = arch["levels"], arch["base_resolution"], arch["input"]
    cap_entries = 1 << arch["log2_table_size"]
    scale = arch["scale"]
    if "finest" in scale:
        finest = scale["finest"]
        growth = 1.0 if levels == 1 else (finest / base) ** (1.0 / (levels - 1))
        cap = finest
    else:
        growth, cap = scale["growth"], MAX_RESOLUTION
    out = []
    for level in range(levels):
        res = min(max(int(np.floor(base * growth**level + 1e-6)), base), cap)
        vertices = (res + 1) ** d
        out.append((res, min(vertices, cap_entries), vertices > cap_entries))
    return out


def hash_grid_encode(arch, tables, u):
    """Features [N, L * F] (level-major) of points u in [0, 1]^d, in float32 cell arithmetic."""
    u = np.clip(u.astype(np.float32), np.float32(0.0), np.float32(1.0))
    d = u.shape[1]
    offset, features = 0, []
    for res, size, hashed in hash_grid_levels(arch):
        p = u * np.float32(res)
        cell = np.minimum(np.floor(np.nan_to_num(p)), res - 1).astype(np.uint64)
        w = (p - cell.astype(np.float32)).astype(np.float64)
        level = 0.0
        for corner in range(1 << d):
            weight, entry = 1.0, np.zeros(u.shape[0], dtype=np.uint64)
            for k in range(d):
                up = (corner >> k) & 1
                ik = cell[:, k] + np.uint64(up)
                weight = weight * (w[:, k] if up else 1.0 - w[:, k])
                if hashed:
                    entry ^= (ik * np.uint64(HASH_PRIMES[k])) & np.uint64(0xFFFFFFFF)
                else:
                    entry += ik * np.uint64((res + 1) ** k)
            if hashed:
                entry &= np.uint64(size - 1)
            level = level + weight[:, None] * tables[offset + entry.astype(np.int64)]
        features.append(level)
        offset += size
    return np.concatenate(features, axis=1)


def hash_grid_forward(arch, tensors, x):
    """The raw outputs of a hash-grid network for inputs x ([N, d])."""
    lo, hi = arch["input_range"]
    scale = np.float32(1.0 / (hi - lo))
    u = x.astype(np.float32) * scale + np.float32(-lo) * scale
    h = hash_grid_encode(arch, tensors["model.encoding.tables"], u)
    h = np.maximum(h @ tensors["model.input.weight"] + tensors["model.input.bias"], 0.0)
    rest = len(arch["hidden"])
    for i in range(rest):
        z = h @ tensors[f"model.layers.{i}.weight"] + tensors[f"model.layers.{i}.bias"]
        h = np.maximum(z, 0.0) if i < rest - 1 else activation(arch["output_activation"], z)
    return h


def outputs(info, h):
    """Answers in user units from the raw outputs h."""
    task = info["task"]
    if task["kind"] == "classification":
        classes = np.array(task["classes"])
        if len(classes) == 2:
            p = 1.0 / (1.0 + np.exp(-h[:, 0]))
            return np.stack([1.0 - p, p], axis=1), np.where(h[:, 0] > 0.0, classes[1], classes[0])
        e = np.exp(h - h.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True), classes[np.argmax(h, axis=1)]
    if info.get("targets"):
        h = h * np.array(info["targets"]["std"]) + np.array(info["targets"]["mean"])
    if info.get("target_range"):
        h = np.clip(h, np.array(info["target_range"]["low"]), np.array(info["target_range"]["high"]))
    if task["kind"] == "image":
        h = np.clip(np.nan_to_num(h, nan=0.0), 0.0, 1.0)
    return h, None


def mlp_forward(arch, tensors, h, prefix="model."):
    """The raw outputs of an MLP (its tensors named `prefix` + `layers.0.weight`, ...) for
    standardised inputs h."""
    encoding = arch.get("encoding", {"kind": "none"})
    if encoding["kind"] in ("fourier", "positional"):
        p = 2.0 * np.pi * (h @ tensors[prefix + "encoding.frequencies"])
        parts = [np.sin(p), np.cos(p)]
        if encoding["kind"] == "positional" and encoding["include_input"]:
            parts.insert(0, h)
        h = np.concatenate(parts, axis=1)
    elif encoding["kind"] != "none":
        raise SystemExit(f"error: encoding {encoding['kind']!r} is not supported by this script")
    layers = len(arch["hidden"]) + 1
    for i in range(layers):
        act = arch["hidden_activation"] if i < layers - 1 else arch["output_activation"]
        h = activation(act, h @ tensors[f"{prefix}layers.{i}.weight"] + tensors[f"{prefix}layers.{i}.bias"])
    return h


def forward(meta, tensors, x):
    """Answers in user units for raw rows x ([N, d], columns in feature_names order)."""
    arch, info = meta["architecture"], meta["model"]
    kind = meta.get("model_kind", "mlp")
    if kind == "hash_grid_mlp":
        return outputs(info, hash_grid_forward(arch, tensors, x))
    if kind not in ("mlp", "mlp_ensemble"):
        raise SystemExit(f"error: model kind {kind!r} is not supported by this script")
    h = x
    if info.get("features"):
        h = (h - np.array(info["features"]["mean"])) / np.array(info["features"]["std"])
    if kind == "mlp":
        return outputs(info, mlp_forward(arch, tensors, h))
    # An ensemble: the weighted sum of its members' raw outputs.
    members = zip(arch["members"], arch["weights"])
    raw = sum(w * mlp_forward(a, tensors, h, f"model.members.{i}.") for i, (a, w) in enumerate(members))
    return outputs(info, raw)


def label_text(value):
    """A class label as iron-learn writes it: 1, not 1.0."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


MISSING = {"", "na", "n/a", "nan", "null", "none", "?", "."}
YES = {"yes", "true", "y", "t", "1"}
NO = {"no", "false", "n", "f", "0"}


CURRENCY_SIGNS = "$€£¥₹₽₩₺¢"
CURRENCY_CODES = ("USD EUR GBP JPY CHF CNY INR CAD AUD SEK NOK DKK PLN CZK HUF RUB BRL MXN "
                  "ZAR KRW SGD HKD NZD TRY").split()


def formatted_number(cell, fmt):
    """A cell written in a column's number format (`1,234.56`, `1.234,56`, `$12`, `45%`,
    `(12.50)`), or None: the signs dropped, the group marks (by three digits) removed."""
    import re

    t = cell.strip()
    negative = False
    if t.startswith("(") and t.endswith(")"):
        negative, t = True, t[1:-1].strip()
    if t[:1] in "-+" and t:
        negative, t = negative != (t[0] == "-"), t[1:].strip()
    for code in [c for c in CURRENCY_SIGNS] + CURRENCY_CODES:
        if t.startswith(code):
            t = t[len(code):].strip()
            if t[:1] in "-+" and t:
                negative, t = negative != (t[0] == "-"), t[1:].strip()
            break
    t = t[:-1].strip() if t.endswith("%") else t
    for code in [c for c in CURRENCY_SIGNS] + CURRENCY_CODES:
        if t.endswith(code):
            t = t[: -len(code)].strip()
            break
    t = t[:-1].strip() if t.endswith("%") else t
    decimal, group = fmt.get("decimal", "."), fmt.get("group")
    whole, _, frac = t.partition(decimal)
    if group:
        marks = group + ("\u00a0\u202f" if group == " " else "")
        parts = re.split("[" + re.escape(marks) + "]", whole)
        if len(parts) > 1 and not (1 <= len(parts[0]) <= 3 and all(len(p) == 3 for p in parts[1:])):
            return None
        whole = "".join(parts)
    if not whole.isdigit() and not (whole == "" and frac) or (frac and not frac.isdigit()):
        return None
    if decimal in t and not frac:
        return None
    v = float(np.float32(float(whole + "." + frac if frac else whole)))
    return -v if negative else v


def number(cell, fmt=None):
    """A cell as a finite number, or None (missing, a word); `fmt` is the column's number
    format (`format` in the model file), absent for plain numbers."""
    if fmt:
        return formatted_number(cell, fmt)
    t = cell.strip()
    if not t or not (t[0].isdigit() or t[0] in "+-."):
        return None
    try:
        v = float(np.float32(float(t)))
    except ValueError:
        return None
    return v if np.isfinite(v) else None


def date_parts(cell):
    """(year, month, weekday with Monday 0, hour or None) of an ISO date, or None."""
    import datetime

    t = cell.strip()
    try:
        day = datetime.date(int(t[0:4]), int(t[5:7]), int(t[8:10]))
    except (ValueError, IndexError):
        return None
    if len(t) < 10 or t[4] != "-" or t[7] != "-":
        return None
    hour = int(t[11:13]) if len(t) > 10 else None
    return {"year": day.year, "month": day.month, "weekday": day.weekday(), "hour": hour}


def piecewise(z, edges):
    """The bins of standardised values `z` between `edges`: each bin's share of the way
    from its lower to its upper edge, clipped to [0, 1] (the first bin not below, the last
    not above)."""
    last = len(edges) - 2
    out = []
    for t in range(last + 1):
        e = (z - edges[t]) / (edges[t + 1] - edges[t])
        if t > 0:
            e = np.maximum(e, 0.0)
        if t < last:
            e = np.minimum(e, 1.0)
        out.append(e)
    return out


def encode(preprocessing, cells):
    """The network's features for raw rows: `cells` maps a column name to its text cells."""
    out = []
    for c in preprocessing["columns"]:
        col = cells[c["column"]]
        missing = np.array([t.strip().lower() in MISSING for t in col])
        kind = c["kind"]
        if kind == "number":
            s = c["scaling"]
            v = [number(t, c.get("format")) for t in col]
            gap = np.array([x is None for x in v])
            x = np.array([s["fill"] if x is None else x for x in v])
            z = (x - s["mean"]) / s["std"]
            if "piecewise" in c:
                out.extend(piecewise(z, c["piecewise"]["edges"]))
            else:
                out.append(z)
            if c["indicator"]:
                out.append(gap.astype(float))
        elif kind == "yes_no":
            words = [t.strip().lower() for t in col]
            v = [1.0 if w in YES else 0.0 if w in NO else None for w in words]
            out.append(np.array([c["fill"] if x is None else x for x in v]))
            if c["indicator"]:
                out.append(np.array([x is None for x in v], dtype=float))
        elif kind == "category":
            levels = c["levels"]
            width = len(levels) + int(c["other"]) + int(c["missing"])
            block = np.zeros((len(col), width))
            for r, t in enumerate(col):
                t = t.strip()
                if t in levels:
                    block[r, levels.index(t)] = 1.0
                elif missing[r] and c["missing"]:
                    block[r, width - 1] = 1.0
                elif c["other"]:
                    block[r, len(levels)] = 1.0
            out.extend(block.T)
        elif kind == "date":
            parsed = [date_parts(t) for t in col]
            for field, s in c["parts"]:
                v = [None if d is None else d[field] for d in parsed]
                x = np.array([s["fill"] if a is None else a for a in v], dtype=float)
                out.append((x - s["mean"]) / s["std"])
            if c["indicator"]:
                out.append(np.array([d is None for d in parsed], dtype=float))
        else:
            raise SystemExit(f"error: column encoding {kind!r} is not supported by this script")
    return np.stack(out, axis=1)


def input_columns(info):
    """The raw columns a model reads."""
    if info.get("preprocessing"):
        return [c["column"] for c in info["preprocessing"]["columns"]]
    return info["feature_names"]


def read_rows(path, info):
    """The network's inputs (before the stored standardisation) for the rows of a CSV file."""
    names = input_columns(info)
    with open(path, newline="") as f:
        text = f.read().lstrip("\ufeff")
    import io

    try:
        delimiter = csv.Sniffer().sniff(text.split("\n", 1)[0], delimiters=",;\t").delimiter
    except csv.Error:
        delimiter = ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = [h.strip() for h in next(reader)]
    missing = [n for n in names if n not in header]
    if missing:
        raise SystemExit(f"error: {path} has no column {missing[0]!r}")
    rows = [row for row in reader if row]
    cells = {n: [row[header.index(n)] for row in rows] for n in names}
    if info.get("preprocessing"):
        return encode(info["preprocessing"], cells)
    return np.array([[float(cells[n][r]) for n in names] for r in range(len(rows))], dtype=np.float64)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("data")
    parser.add_argument("-o", "--output")
    args = parser.parse_args()
    meta, tensors = load(args.model)
    info = meta["model"]
    x = read_rows(args.data, info)
    values, labels = forward(meta, tensors, x)
    names = info.get("class_names")
    text = (lambda c: names[int(c)]) if names else label_text
    if labels is not None:
        header = ["prediction"] + [f"probability_{text(c)}" for c in info["task"]["classes"]]
    elif values.shape[1] == 1:
        header = ["prediction"]
    else:
        header = [f"prediction_{n}" for n in info["target_names"]]
    out = open(args.output, "w", newline="") if args.output else sys.stdout
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for r in range(values.shape[0]):
        lead = [text(labels[r])] if labels is not None else []
        writer.writerow(lead + [repr(float(v)) for v in values[r]])
    if args.output:
        out.close()


if __name__ == "__main__":
    main()
