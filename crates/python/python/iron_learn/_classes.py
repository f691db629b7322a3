"""The classes of a classifier: the native model names them by their text (a word, or a
number in shortest form); scikit-learn keeps them as the values ``y`` held, sorted."""

import numpy as np


def _same(text, value):
    """Whether the model's class text ``text`` names the label ``value``."""
    if isinstance(value, (bool, np.bool_)):
        return text.lower() == str(bool(value)).lower()
    if isinstance(value, (int, float, np.integer, np.floating)):
        try:
            return np.float32(float(text)) == np.float32(value)
        except ValueError:
            return False
    return text == str(value)


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
    """The classes of a model read from a file: numbers where every text is one, else the
    texts; sorted."""
    try:
        numbers = np.asarray([float(t) for t in texts])
    except ValueError:
        return np.unique(np.asarray(texts, dtype=object))
    if np.all(numbers == np.round(numbers)):
        return np.unique(numbers.astype(np.int64))
    return np.unique(numbers)
