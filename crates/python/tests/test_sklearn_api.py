"""The estimators in scikit-learn's machinery: cross-validation, grid search, pipelines,
clone and pickle; and the model files of the command line both ways."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from conftest import DATA
from iron_learn import TableClassifier, TableRegressor


@pytest.fixture(scope="module")
def circles():
    frame = pd.read_csv(DATA / "circles.csv")
    return frame.iloc[:, :-1], frame.iloc[:, -1]


@pytest.fixture(scope="module")
def regression():
    frame = pd.read_csv(DATA / "regression.csv")
    return frame.drop(columns="y"), frame["y"]


def test_cross_val_score_learns_the_circles(circles):
    X, y = circles
    scores = cross_val_score(TableClassifier(device="cpu"), X, y, cv=3)
    assert len(scores) == 3
    # Two concentric circles: a linear model scores about a half, the network nearly all.
    assert scores.min() > 0.9, scores


def test_grid_search_over_two_options(regression):
    X, y = regression
    grid = GridSearchCV(
        TableRegressor(device="cpu", epochs=5),
        {"model": ["mlp", "linear"], "weight_decay": [0.0, 2.0]},
        cv=KFold(3, shuffle=True, random_state=0),
    )
    grid.fit(X, y)
    assert len(grid.cv_results_["params"]) == 4
    assert grid.best_params_["model"] in ("mlp", "linear")
    assert grid.best_estimator_.n_features_in_ == 4
    assert grid.score(X, y) > 0.5


def test_a_pipeline_passes_a_frame_through(regression):
    X, y = regression
    double = ColumnTransformer([("scaled", FunctionTransformer(lambda v: 2 * v), ["x1", "x2"])],
                               remainder="passthrough", verbose_feature_names_out=False)
    double.set_output(transform="pandas")
    pipe = Pipeline([("double", double), ("model", TableRegressor(device="cpu", model="linear"))])
    pipe.fit(X, y)
    assert list(pipe[-1].feature_names_in_) == ["x1", "x2", "x3", "x4"]
    assert pipe.score(X, y) > 0.5


def test_clone_keeps_the_parameters_and_not_the_fit(circles):
    X, y = circles
    fitted = TableClassifier(device="cpu", hidden="32x2", epochs=3, random_state=7).fit(X, y)
    copy = clone(fitted)
    assert copy.get_params() == fitted.get_params()
    assert not hasattr(copy, "model_")
    copy.set_params(epochs=4)
    assert copy.epochs == 4 and fitted.epochs == 3


def test_a_pickled_estimator_predicts_the_same(circles, tmp_path):
    X, y = circles
    model = TableClassifier(device="cpu").fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(again.classes_, model.classes_)


def test_the_same_seed_gives_the_same_model_and_another_another(regression):
    X, y = regression
    a = TableRegressor(device="cpu", model="mlp", epochs=3, random_state=3).fit(X, y)
    b = TableRegressor(device="cpu", model="mlp", epochs=3, random_state=3).fit(X, y)
    c = TableRegressor(device="cpu", model="mlp", epochs=3, random_state=4).fit(X, y)
    assert a.model_ == b.model_
    assert not np.array_equal(a.predict(X), c.predict(X))


def test_n_jobs_does_not_change_the_model(regression):
    X, y = regression
    one = TableRegressor(device="cpu", model="mlp", epochs=3, n_jobs=1).fit(X, y)
    two = TableRegressor(device="cpu", model="mlp", epochs=3, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.predict(X), two.predict(X))


def test_string_labels_come_back_as_given(circles):
    X, y = circles
    words = np.where(y == 1, "outer", "inner")
    model = TableClassifier(device="cpu").fit(X, words)
    assert list(model.classes_) == ["inner", "outer"]
    predicted = model.predict(X)
    assert set(predicted) <= {"inner", "outer"}
    assert np.mean(predicted == words) > 0.9
    proba = model.predict_proba(X)
    # The columns follow classes_: the more likely class is the one predicted.
    np.testing.assert_array_equal(model.classes_[proba.argmax(axis=1)], predicted)


def test_three_classes_in_sorted_order():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = np.select([X[:, 0] > 0.5, X[:, 0] < -0.5], [30, 10], 20)
    model = TableClassifier(device="cpu", model="mlp").fit(X, y)
    assert list(model.classes_) == [10, 20, 30]
    assert model.predict_proba(X).shape == (300, 3)
    assert model.score(X, y) > 0.9
