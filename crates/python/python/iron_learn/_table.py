"""The table estimators: the default table model of ``iron-learn mlp`` behind scikit-learn's
conventions."""

import os
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_array,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from . import _common, _frames, _native
from ._classes import check_distinct, class_order, classes_from_texts


class _TableEstimator(BaseEstimator):
    """What both table estimators share: the parameters of ``iron-learn mlp``, fitting
    through a CSV file of the rows, predicting, and the model file."""

    _task = None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags

    # Fitting.

    def fit(self, X, y):
        """Trains the model on every row of ``X`` (a DataFrame, or an array of rows) with
        targets ``y``; returns the estimator."""
        named = getattr(y, "name", None)
        X, y = self._checked(X, y)
        names = _frames.column_names(X)
        target = _frames.target_name(names, named)
        frame = _frames.frame_of(X, names)
        self._category_columns = _frames.category_columns(frame, self.numeric, self.ignore)
        frame[target] = y
        with _common.run_folder() as folder:
            data = os.path.join(folder, "train.csv")
            _frames.write_csv(data, frame)
            model, report = _native.fit_table(
                data,
                target,
                _common.run_dir(folder),
                self._spec(),
                device=_common.device_of(self.device),
                verbose=bool(self.verbose),
                threads=_common.threads_of(self.n_jobs),
            )
        self._adopt(model, names)
        self.report_ = _common.report_lines(report)
        if self.verbose:
            _common.print_report(self.report_)
        return self

    def _checked(self, X, y):
        """``X`` and ``y`` checked as scikit-learn checks them; sets ``n_features_in_`` and
        (for a DataFrame) ``feature_names_in_``."""
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        if _frames.is_frame(X):
            validate_data(self, X, skip_check_array=True)
            y = column_or_1d(check_array(y, ensure_2d=False, dtype=None, input_name="y"), warn=True)
            check_consistent_length(X, y)
            if X.shape[0] < 2:
                raise ValueError(f"Found {X.shape[0]} sample(s); a minimum of 2 is required")
        else:
            X, y = validate_data(
                self, X, y, dtype=None, ensure_all_finite="allow-nan", ensure_min_samples=2,
                y_numeric=self._task == "regression",
            )
        return X, self._targets(y)

    def _spec(self):
        """The parameters as the native fit reads them."""
        if self.portfolio in ("small", "full") and self.folds is None and self.model == "auto":
            raise ValueError(
                "portfolio chooses the default model's candidates over folds; "
                "give folds as well (folds=5, as the command line does)"
            )
        def names(columns):
            # The table reader trims the spaces around a header, as around any cell.
            if isinstance(columns, str):
                return [columns.strip()]
            return [str(c).strip() for c in (columns or [])]

        return {
            "task": self._task,
            "model": self.model,
            "hidden": _hidden(self.hidden),
            "activation": self.activation,
            "weight_decay": self.weight_decay,
            "numeric_encoding": self.numeric_encoding,
            "periodic": _common.count_of("periodic", self.periodic),
            "bins": _common.count_of("bins", self.bins),
            "val_fraction": self.val_fraction,
            "patience": _common.count_of("patience", self.patience),
            "drop_missing": bool(self.drop_missing),
            "categorical": _joined(names(self.categorical), getattr(self, "_category_columns", [])),
            "numeric": names(self.numeric),
            "ignore": names(self.ignore),
            "class_weight": _class_weight(getattr(self, "class_weight", None)),
            "folds": _common.count_of("folds", self.folds),
            "portfolio": self.portfolio,
            "seed": _common.seed_of(self.random_state),
            "lr": self.lr,
            "epochs": _common.count_of("epochs", self.epochs),
            "steps": _common.count_of("steps", self.steps),
            "batch": None if self.batch is None else str(self.batch),
            "schedule": self.schedule,
        }

    def _adopt(self, model, columns):
        """Takes the model file's bytes ``model``, which reads the CSV columns ``columns``."""
        self.model_ = bytes(model)
        self._columns = list(columns)

    # Predicting.

    def _answers(self, X):
        """The native predictions for the rows of ``X``."""
        check_is_fitted(self, "model_")
        if _frames.is_frame(X):
            validate_data(self, X, skip_check_array=True, reset=False)
        else:
            X = validate_data(self, X, dtype=None, ensure_all_finite="allow-nan", reset=False)
        if len(self._columns) != np.shape(X)[1]:
            raise ValueError(
                f"X has {np.shape(X)[1]} features, but {type(self).__name__} is expecting "
                f"{len(self._columns)} features as input"
            )
        frame = _frames.frame_of(X, self._columns)
        with _common.run_folder() as folder:
            data = os.path.join(folder, "rows.csv")
            _frames.write_csv(data, frame)
            answers = _native.predict_table(
                self.model_, data, threads=_common.threads_of(self.n_jobs)
            )
        values = np.frombuffer(answers["values"], dtype="<f4")
        answers["values"] = values.reshape(answers["rows"], answers["width"])
        # Cells that could not be read are predicted as missing ones: say so.
        for note in answers.get("notes") or []:
            warnings.warn(f"{note}", UserWarning, stacklevel=3)
        return answers

    # Model files.

    def save(self, path):
        """Writes the model file ``iron-learn predict`` and ``iron-learn export`` read."""
        check_is_fitted(self, "model_")
        _native.write_model(self.model_, os.fspath(path))

    @classmethod
    def load(cls, path, **params):
        """An estimator holding the model in ``path``: a model file, or a run folder of
        ``iron-learn mlp`` (``params``: the estimator's parameters for predicting, such as
        ``n_jobs``)."""
        model = _native.read_model(os.fspath(path))
        info = _native.model_info(model)
        if info["task"] != cls._task:
            raise ValueError(f"{os.fspath(path)} holds a {info['task']} model, not a {cls._task} model")
        estimator = cls(**params)
        estimator._adopt(model, info["inputs"])
        estimator.n_features_in_ = len(info["inputs"])
        # A model fitted on an array reads columns x0, x1, ...: no names, as after that fit.
        if list(info["inputs"]) != _frames.column_names(np.empty((0, len(info["inputs"])))):
            estimator.feature_names_in_ = np.asarray(info["inputs"], dtype=object)
        estimator._loaded(info)
        return estimator

    def _loaded(self, info):
        """Sets what a loaded model's file says beyond its inputs."""

    def to_onnx(self, path, half=False):
        """Writes the ONNX graph ``iron-learn export`` writes (``half``: float16 weights)."""
        check_is_fitted(self, "model_")
        _native.write_onnx(self.model_, os.fspath(path), half=half)


def _keep(estimator, params):
    """Stores each parameter of ``__init__`` (``params``: its ``locals()``) as it is given,
    as scikit-learn asks of an estimator."""
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)


def _joined(asked, found):
    """The columns ``asked`` for, then those ``found`` that are not among them."""
    return asked + [name for name in found if name not in asked]


def _hidden(hidden):
    """``hidden`` as the command line reads it: ``None``, text (``"256,256"``, ``"256x3"``),
    one width, or a list or tuple of widths (as scikit-learn's ``hidden_layer_sizes``)."""
    if hidden is None or isinstance(hidden, str):
        return hidden
    if isinstance(hidden, (list, tuple)):
        return ",".join(str(h) for h in hidden)
    return str(hidden)


def _class_weight(weight):
    """``class_weight`` checked: ``None`` or ``"balanced"``."""
    if weight is None or (isinstance(weight, str) and weight == "balanced"):
        return weight
    raise ValueError(f"class_weight must be None or 'balanced', not {weight!r}")


_PARAMETERS_DOC = """
    Parameters
    ----------
    model : {"auto", "mlp", "linear"}, default="auto"
        ``auto``: networks on plain, periodic and piecewise-linear inputs and a linear model
        compared on held-out training rows, the best kept; ``mlp``: the network alone;
        ``linear``: a linear model alone (for ``TableClassifier``, a logistic regression
        of two classes; ``auto`` weighs a multinomial one among its candidates).
    hidden : str, int or list of int, default=None
        Hidden widths (``"256,256"``, ``"256x3"``, ``[256, 256]``); ``None``: the command
        line's default.
    activation : {"relu", "tanh", "sigmoid", "sine"}, default=None
        Hidden activation (``None``: ReLU).
    weight_decay : float, default=None
        AdamW's decoupled weight decay (``None``: the command line's default; 0: Adam).
    numeric_encoding : {"plain", "periodic", "piecewise"}, default=None
        How the network reads numbers (with ``auto``: the second network's inputs).
    periodic, bins : int, default=None
        Periodic bands; piecewise-linear bins.
    val_fraction : float, default=None
        Share of the rows held out for validation (``None``: ``auto``'s share).
    folds : int, default=None
        Work over this many folds (2 to 20), as ``iron-learn mlp`` does by default with 5 on
        tables of up to 20,000 rows: the default model keeps the mean of its folds' networks
        and linear model, mixed by their scores on the rows they did not train on (about
        twice ``folds`` times as long: each fold trains more networks than one split does);
        another model is trained once more on every row.
        ``None``: one split, ``val_fraction`` of the rows choosing the model.
    portfolio : {"small", "full"}, default=None
        The candidates of the default model over folds (``None``: ``full``, the command
        line's): ``small`` trains the plain, periodic and piecewise-linear networks and the
        linear model in each fold, without the plain network's variants (less time, a lower
        mean on the development tables). Given only with ``folds``.
    patience : int, default=None
        Early stopping's patience, in epochs.
    drop_missing : bool, default=False
        Drop rows with a missing cell instead of imputing it.
    categorical, numeric, ignore : str or list of str, default=None
        Columns read as categories, read as numbers, or left out. A DataFrame's ``category``
        columns are read as categories, numbers among them too, unless ``numeric`` names
        them.
    epochs, steps : int, default=None
        The length of training, in passes over the rows or in steps (``None``: the job's).
    batch : int or "full", default=None
        Rows per step.
    lr : float, default=None
        Learning rate.
    schedule : {"constant", "step", "cosine"}, default=None
        Learning-rate schedule.
    random_state : int, RandomState or None, default=None
        The seed of the splits, the initial weights and the batch order (``None``: the
        command line's default seed, so that a fit repeats).
    device : {"auto", "cpu", "cuda"}, default="auto"
        Where to train: ``auto`` uses a usable GPU, else the CPU.
    n_jobs : int, default=None
        Threads of the CPU's work (``None`` or -1: every core; -2: every core but one).
    verbose : int, default=0
        Print progress lines and the report.
"""


class TableClassifier(ClassifierMixin, _TableEstimator):
    __doc__ = (
        "Classes of table rows: the default table model of ``iron-learn mlp --task "
        "classification``.\n" + _PARAMETERS_DOC + """    class_weight : {"balanced"}, default=None
        Repeat each class's training rows to the most common class's count.

    Attributes
    ----------
    classes_ : ndarray
        The classes, sorted.
    model_ : bytes
        The model file's bytes.
    report_ : list of str
        The job's report: the model kept and why.
"""
    )

    _task = "classification"

    def __init__(self, *, model="auto", hidden=None, activation=None, weight_decay=None,
                 numeric_encoding=None, periodic=None, bins=None, val_fraction=None,
                 folds=None, portfolio=None, patience=None, drop_missing=False, categorical=None,
                 numeric=None, ignore=None, class_weight=None, epochs=None, steps=None,
                 batch=None, lr=None, schedule=None, random_state=None, device="auto", n_jobs=None, verbose=0):
        _keep(self, locals())

    def _targets(self, y):
        check_classification_targets(y)
        if np.issubdtype(np.asarray(y).dtype, np.datetime64):
            raise ValueError("classes that are dates are not supported; give them as text (y.astype(str))")
        self.classes_ = np.unique(y)
        check_distinct(list(self.classes_))
        if len(self.classes_) < 2:
            raise ValueError(
                f"a classifier needs at least 2 classes; y has 1 class ({self.classes_[0]!r})"
            )
        return y

    def _loaded(self, info):
        self.classes_ = classes_from_texts(info["classes"])

    def predict_proba(self, X):
        """Each row's probability of each class, columns in the order of ``classes_``."""
        answers = self._answers(X)
        order = class_order(answers["classes"], self.classes_)
        proba = np.zeros((answers["rows"], len(self.classes_)), dtype=np.float64)
        proba[:, order] = answers["values"]
        # float32 probabilities, summed again in float64 so that each row adds up to 1.
        return proba / proba.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Each row's class."""
        answers = self._answers(X)
        order = np.asarray(class_order(answers["classes"], self.classes_))
        return self.classes_[order[np.asarray(answers["labels"], dtype=np.intp)]]


class TableRegressor(RegressorMixin, _TableEstimator):
    __doc__ = (
        "Numbers of table rows: the default table model of ``iron-learn mlp --task "
        "regression``.\n" + _PARAMETERS_DOC + """
    Attributes
    ----------
    model_ : bytes
        The model file's bytes.
    report_ : list of str
        The job's report: the model kept and why.
"""
    )

    _task = "regression"

    def __init__(self, *, model="auto", hidden=None, activation=None, weight_decay=None,
                 numeric_encoding=None, periodic=None, bins=None, val_fraction=None,
                 folds=None, portfolio=None, patience=None, drop_missing=False, categorical=None,
                 numeric=None, ignore=None, epochs=None, steps=None, batch=None, lr=None,
                 schedule=None, random_state=None, device="auto", n_jobs=None, verbose=0):
        _keep(self, locals())

    def _targets(self, y):
        y = np.asarray(y)
        if y.dtype.kind == "b":
            return y.astype(np.float64)
        if y.dtype.kind not in "biuf":
            y = check_array(y, ensure_2d=False, dtype="numeric", input_name="y")
        return y

    def predict(self, X):
        """Each row's predicted number."""
        return self._answers(X)["values"][:, 0].astype(np.float64)
