"""Rows from Python as the CSV files the native table job reads: a pandas DataFrame's
columns as they are (text, categories, booleans, dates, missing values), an array's as
``x0, x1, ...``."""

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


def write_csv(path, frame):
    """Writes ``frame`` as CSV (missing values as empty cells, numbers in full precision)."""
    frame.to_csv(path, index=False, na_rep="")


def categories_of_numbers(frame, numeric):
    """The columns of ``frame`` of pandas' ``category`` type whose categories are numbers
    (which the table reader would read as numbers), less those ``numeric`` names."""
    if isinstance(numeric, str):
        numeric = [numeric]
    asked = {str(c) for c in (numeric or [])}
    found = []
    for name in frame.columns:
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype) and name not in asked:
            if pd.api.types.is_numeric_dtype(column.dtype.categories.dtype):
                found.append(name)
    return found
