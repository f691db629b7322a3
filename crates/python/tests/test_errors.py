"""Bad input is refused with the Python exception a user expects and the library's
one-line message."""

import numpy as np
import pandas as pd
import pytest

from conftest import DATA
from iron_learn import TableClassifier, TableRegressor


@pytest.fixture(scope="module")
def regression():
    frame = pd.read_csv(DATA / "regression.csv")
    return frame.drop(columns="y"), frame["y"]


@pytest.mark.parametrize("params,message", [
    ({"model": "forest"}, "model must be 'auto', 'mlp' or 'linear', not \"forest\""),
    ({"hidden": "wide"}, "hidden: "),
    ({"activation": "gelu"}, "activation must be"),
    ({"numeric_encoding": "binned"}, "numeric_encoding must be"),
    ({"schedule": "linear"}, "schedule must be"),
    ({"batch": 0}, "batch: batch size must be at least 1"),
    ({"epochs": 2, "steps": 3}, "give epochs or steps, not both"),
    ({"device": "tpu"}, "device must be one of"),
    ({"n_jobs": 0}, "n_jobs must be None, a positive number of threads, or negative"),
    ({"random_state": "seven"}, "random_state must be None, an integer or a RandomState"),
    ({"val_fraction": 1.5}, "1.5"),
    ({"folds": 1}, "2 to 20 folds, got 1"),
    ({"portfolio": "huge"}, "portfolio must be 'small' or 'full', not \"huge\""),
    ({"model": "mlp", "portfolio": "small"}, "a portfolio is the default model's candidates"),
    ({"portfolio": "small"}, "portfolio chooses the default model's candidates over folds; give folds"),
    ({"weight_decay": -1.0}, "-1"),
])
def test_bad_parameters_are_refused_at_fit(regression, params, message):
    X, y = regression
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        TableRegressor(**{"device": "cpu", **params}).fit(X, y)


def test_a_classifier_refuses_a_continuous_target(regression):
    X, y = regression
    with pytest.raises(ValueError, match="Unknown label type"):
        TableClassifier(device="cpu").fit(X, y)


def test_a_regressor_refuses_words_as_targets(regression):
    X, _ = regression
    with pytest.raises(ValueError):
        TableRegressor(device="cpu").fit(X, np.where(X["x1"] > 0, "up", "down"))


def test_a_missing_model_file_is_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        TableRegressor.load(tmp_path / "none.safetensors")


def test_a_model_saved_into_a_missing_folder_is_not_found(regression, tmp_path):
    X, y = regression
    model = TableRegressor(model="linear", device="cpu").fit(X, y)
    with pytest.raises(FileNotFoundError, match="there is no folder .* to write"):
        model.save(tmp_path / "nowhere" / "model.safetensors")


def test_a_file_that_is_no_model_is_refused(tmp_path):
    (tmp_path / "notes.safetensors").write_text("not a model")
    with pytest.raises(ValueError, match="notes.safetensors"):
        TableRegressor.load(tmp_path / "notes.safetensors")


def test_predicting_before_fitting_is_refused(regression):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        TableRegressor().predict(regression[0])


def test_rows_of_other_columns_are_refused(regression):
    X, y = regression
    model = TableRegressor(device="cpu", model="linear").fit(X, y)
    with pytest.raises(ValueError, match="feature names"):
        model.predict(X.rename(columns={"x1": "size"}))
    with pytest.raises(ValueError, match="X has 3 features, but TableRegressor is expecting 4"):
        with pytest.warns(UserWarning, match="X does not have valid feature names"):
            model.predict(X.to_numpy()[:, :3])


def test_a_column_named_twice_is_refused(regression):
    X, y = regression
    X = X.set_axis(["a", "b", "a", "c"], axis=1)
    with pytest.raises(ValueError, match="(unique column names|appears twice)"):
        TableRegressor(device="cpu").fit(X, y)


def test_messages_name_the_rows_given_not_a_temporary_file(regression):
    X, y = regression
    model = TableRegressor(model="linear", device="cpu").fit(X, y)
    with pytest.raises(ValueError) as refused:
        model.predict(X.iloc[:0])
    message = str(refused.value)
    assert "the rows given" in message and "iron-learn-" not in message, message
