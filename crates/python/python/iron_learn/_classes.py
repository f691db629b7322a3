"""The classes of a classifier: the native model names them by their text (a word, or a
number in shortest form); scikit-learn keeps them as the values ``y`` held, sorted."""

import numpy as np


def _number(text, kind=np.float64):
    """``text`` as a number of ``kind`` (the table reader reads labels as float64), or
    ``None`` where it is no number."""
    try:
        return kind(float(text))
    except (TypeError, ValueError, OverflowError):
        return None


def _same(text, value):
    """Whether the model's class text ``text`` names the label ``value`` (the table reader
    trims a cell's spaces and reads ``1.0`` as the number 1). A float label is compared at
    its own precision (a float32 is written as its shortest float32 text), any other
    number as a float64, so 16777216 and 16777217 stay two classes."""
    if isinstance(value, (bool, np.bool_)):
        return text.lower() == str(bool(value)).lower()
    if isinstance(value, (int, float, np.integer, np.floating)):
        kind = type(value) if isinstance(value, np.floating) else np.float64
        number = _number(text, kind)
        return number is not None and number == kind(value)
    value = str(value).strip()
    if text == value:
        return True
    number = _number(value)
    return number is not None and number == _number(text)


def check_distinct(classes):
    """Refuses classes that the table reader would read as one (`` a`` and ``a``, ``1`` and
    ``1.0``)."""
    for i, a in enumerate(classes):
        for b in classes[i + 1:]:
            if _same(str(b).strip(), a) or _same(str(a).strip(), b):
                raise ValueError(
                    f"the classes {a!r} and {b!r} would be read as one class; "
                    "give each class a distinct name"
                )


def class_order(texts, classes):
    """The index in ``classes`` of each of the model's classes ``texts``."""
    order = []
    for text in texts:
        found = [i for i, c in enumerate(classes) if _same(text, c)]
        if not found:
            raise ValueError(f"the model's class {text!r} is none of {list(classes)!r}")
        order.append(found[0])
    return order


def classes_from_texts(texts):
    """The classes of a model read from a file: ``False`` and ``True`` for those two,
    numbers where every text is one, else the texts; sorted."""
    if sorted(t.lower() for t in texts) == ["false", "true"]:
        return np.asarray([False, True])
    try:
        numbers = np.asarray([float(t) for t in texts])
    except ValueError:
        return np.unique(np.asarray(texts, dtype=object))
    if np.all(numbers == np.round(numbers)):
        return np.unique(numbers.astype(np.int64))
    return np.unique(numbers)
