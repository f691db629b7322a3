"""Iron Learn from Python: the engine of the ``iron-learn`` command line behind
scikit-learn estimators for tables and an image fit.

- :class:`TableClassifier` and :class:`TableRegressor`: the default table model of
  ``iron-learn mlp`` (networks and a linear model compared on held-out training rows), with
  ``fit``, ``predict``, ``predict_proba`` and ``score``; ``X`` as a pandas DataFrame (text,
  categories, booleans, dates and missing values read as the command line reads a table) or
  an array.
- :func:`fit_image`: a picture fitted as a function of its pixel coordinates, redrawn at
  any size (:class:`ImageModel`).

Fitted models read and write the command line's model files (``save``, ``load``) and
export the same ONNX graph as ``iron-learn export`` (``to_onnx``).
"""

from ._image import ImageModel, fit_image
from ._native import __version__
from ._table import TableClassifier, TableRegressor

__all__ = ["TableClassifier", "TableRegressor", "ImageModel", "fit_image", "__version__"]
