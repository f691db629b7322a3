"""Rows from Python as the CSV files the native table job reads: a pandas DataFrame's
columns as they are (text, categories, booleans, dates, missing values), an array's as
``x0, x1, ...``."""

import warnings

import numpy as np
import pandas as pd


def is_frame(X):
    """Whether ``X`` is a pandas DataFrame."""
    return isinstance(X, pd.DataFrame)


def column_names(X):
    """The CSV's names for the columns of ``X``: a DataFrame's own (as text, each once), or
    ``x0, x1, ...`` for an array."""
    if not is_frame(X):
        return [f"x{i}" for i in range(np.shape(X)[1])]
    names = [str(c) for c in X.columns]
    seen = set()
    for name in names:
        if name in seen:
            raise ValueError(f"the column {name!r} appears twice; give each column its own name")
        seen.add(name)
    return names


def target_name(names, own):
    """A name for the target column that no feature has: the target's own name ``own``
    (a Series' name) when it has one, else ``target`` (with a number added where that is
    taken)."""
    if isinstance(own, str) and own and own not in names:
        return own
    name, n = "target", 1
    while name in names:
        name, n = f"target_{n}", n + 1
    return name


def frame_of(X, names):
    """``X`` as a DataFrame whose columns are ``names`` (a DataFrame's columns taken by
    position, an array's in order)."""
    if is_frame(X):
        frame = X.copy(deep=False)
        frame.columns = names
        return frame
    return pd.DataFrame(np.asarray(X), columns=names, copy=False)


#: Texts the table reader takes for a missing cell, in any case (as in a CSV file).
MISSING_TEXTS = {"na", "n/a", "nan", "null", "none", "?", "."}


def write_csv(path, frame):
    """Writes ``frame`` as CSV (missing values as empty cells, numbers in full precision):
    a column of whole numbers held as floats (as pandas holds an integer column with a
    missing value) as whole numbers, so that its levels read the same as the integers'.
    Warns of texts the reader takes for missing cells (``NA``, ``None``)."""
    frame = frame.copy(deep=False)
    for name in frame.columns:
        frame[name] = _whole_numbers(frame[name])
        _warn_missing_texts(name, frame[name])
    frame.to_csv(path, index=False, na_rep="")


def _whole_numbers(column):
    """``column`` with whole float values written as integers: a float column, or a
    category column of float categories, whose values are all whole (or missing)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = column.cat.categories
        if pd.api.types.is_float_dtype(categories.dtype) and _all_whole(categories):
            return column.cat.rename_categories(categories.astype("int64"))
        return column
    if pd.api.types.is_float_dtype(column.dtype) and _all_whole(column.dropna()):
        return column.astype("Int64")
    return column


def _all_whole(values):
    """Whether every value is a whole number that an int64 holds."""
    v = np.asarray(values, dtype=np.float64)
    return v.size > 0 and bool(np.all(np.isfinite(v) & (v == np.round(v)) & (np.abs(v) < 2.0**53)))


def _warn_missing_texts(name, column):
    """Warns where text cells of ``column`` are words the reader takes for missing cells."""
    if not (pd.api.types.is_object_dtype(column.dtype) or pd.api.types.is_string_dtype(column.dtype)
            or isinstance(column.dtype, pd.CategoricalDtype)):
        return
    found = [t for t in column.dropna() if isinstance(t, str) and t.strip().lower() in MISSING_TEXTS]
    if found:
        shown = ", ".join(repr(t) for t in sorted(set(found))[:3])
        warnings.warn(
            f"column {name!r}: {len(found)} cell(s) hold the text {shown}, which is read as a "
            "missing value (as in a CSV file); give another text to keep it as a value",
            UserWarning,
            stacklevel=4,
        )


def category_columns(frame, numeric, ignore):
    """The columns of ``frame`` of pandas' ``category`` type, read as categories whatever
    their levels (numbers, or texts of digits such as ``"01"``), less those named in
    ``numeric`` or ``ignore``."""
    asked = set()
    for names in (numeric, ignore):
        if isinstance(names, str):
            names = [names]
        asked |= {str(c).strip() for c in (names or [])}
    return [
        name
        for name in frame.columns
        if isinstance(frame[name].dtype, pd.CategoricalDtype) and name not in asked
    ]
