"""Labels and columns as pandas and scikit-learn users give them: labels the table reader
would rewrite, integers beyond float32's precision, float32 labels, booleans, a single
column name, widths as a list, pandas categories of numbers, and probabilities that sum to
one."""

import numpy as np
import pandas as pd
import pytest

from iron_learn import TableClassifier, TableRegressor


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({
        "a": rng.normal(size=n),
        "b": rng.normal(size=n),
        "code": pd.Categorical(rng.integers(0, 5, n)),
    })
    return X, (X["a"] + X["b"] > 0).to_numpy()


@pytest.mark.parametrize("no,yes", [("0.0", "1.0"), ("no", " yes")])
def test_labels_the_reader_rewrites_come_back_as_given(rows, no, yes):
    X, positive = rows
    y = np.where(positive, yes, no).astype(object)
    model = TableClassifier(model="linear", device="cpu").fit(X, y)
    assert list(model.classes_) == sorted([no, yes])
    predicted = model.predict(X)
    assert set(predicted) <= {no, yes}
    assert np.mean(predicted == y) > 0.9


def test_labels_the_reader_would_merge_are_refused(rows):
    X, positive = rows
    y = np.where(positive, "1", "1.0").astype(object)
    with pytest.raises(ValueError, match="'1' and '1.0' would be read as one class"):
        TableClassifier(model="linear", device="cpu").fit(X, y)


def test_integer_labels_a_float32_cannot_tell_apart_stay_apart(rows, tmp_path):
    X, positive = rows
    y = np.where(positive, 16_777_217, 16_777_216)
    model = TableClassifier(model="linear", device="cpu").fit(X, y)
    assert list(model.classes_) == [16_777_216, 16_777_217]
    predicted = model.predict(X)
    assert np.mean(predicted == y) > 0.9
    model.save(tmp_path / "model.safetensors")
    again = TableClassifier.load(tmp_path / "model.safetensors")
    np.testing.assert_array_equal(again.classes_, model.classes_)
    np.testing.assert_array_equal(again.predict(X), predicted)


def test_float32_labels_come_back_as_given(rows):
    X, positive = rows
    # scikit-learn takes whole numbers only as a classifier's float labels.
    y = np.where(positive, np.float32(3.0), np.float32(1.0))
    assert y.dtype == np.float32
    model = TableClassifier(model="linear", device="cpu").fit(X, y)
    predicted = model.predict(X)
    assert predicted.dtype == np.float32
    assert set(predicted) <= {np.float32(1.0), np.float32(3.0)}
    assert np.mean(predicted == y) > 0.9


def test_boolean_classes_survive_a_model_file(rows, tmp_path):
    X, positive = rows
    model = TableClassifier(model="linear", device="cpu").fit(X, positive)
    model.save(tmp_path / "model.safetensors")
    again = TableClassifier.load(tmp_path / "model.safetensors")
    assert again.classes_.dtype == bool
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert again.score(X, positive) == model.score(X, positive)


def test_probabilities_sum_to_one_in_float64(rows):
    X, positive = rows
    proba = TableClassifier(model="mlp", epochs=3, device="cpu").fit(X, positive).predict_proba(X)
    assert proba.dtype == np.float64
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_a_category_of_numbers_is_read_as_a_category(rows):
    X, _ = rows
    # The target depends on one level of `code` only: a linear model fits it exactly only
    # when `code` is one-hot encoded, not read as one number.
    y = 2.0 * X["a"] + 5.0 * (X["code"].astype(int) == 3)
    as_category = TableRegressor(model="linear", device="cpu").fit(X, y)
    as_number = TableRegressor(model="linear", numeric=["code"], device="cpu").fit(X, y)
    assert as_category.score(X, y) > 0.999
    assert as_number.score(X, y) < 0.9


def test_one_column_name_and_widths_as_a_list(rows):
    X, positive = rows
    y = 3.0 * X["a"]
    model = TableRegressor(model="linear", ignore="b", device="cpu").fit(X, y)
    assert model.score(X, y) > 0.999
    net = TableRegressor(model="mlp", hidden=[8, 8], epochs=1, device="cpu").fit(X, positive)
    assert net.predict(X).shape == (len(X),)


def test_a_column_name_with_spaces_around_it_is_found(rows):
    X, _ = rows
    padded = X.rename(columns={"b": " b "})
    y = 3.0 * X["a"]
    model = TableRegressor(model="linear", ignore=[" b "], device="cpu").fit(padded, y)
    assert model.score(padded, y) > 0.999
    assert list(model.feature_names_in_) == ["a", " b ", "code"]


def test_whole_numbers_held_as_floats_read_as_the_integers(rows):
    # pandas holds an integer column with a gap as floats: its levels are the integers'.
    X, positive = rows
    y = X["a"] * 2.0 + X["code"].astype(int)
    codes = X.assign(code=X["code"].astype(int))
    model = TableRegressor(model="linear", categorical="code", device="cpu").fit(codes, y)
    as_ints = model.predict(codes.head(20))
    as_floats = model.predict(codes.head(20).astype({"code": float}))
    np.testing.assert_allclose(as_floats, as_ints, rtol=1e-6)


def test_categories_of_digit_texts_and_ignored_ones(rows):
    X, positive = rows
    y = X["a"] + X["code"].astype(int)
    digits = X.assign(code=pd.Categorical(X["code"].astype(int).map("{:02d}".format)))
    model = TableRegressor(model="linear", device="cpu").fit(digits, y)
    assert "code" in model._category_columns
    # A category column left out is not also asked to be read as categories.
    TableRegressor(model="linear", ignore="code", device="cpu").fit(X, y)


def test_texts_read_as_missing_are_said(rows):
    X, positive = rows
    region = np.where(positive, "NA", "EU")
    with pytest.warns(UserWarning, match="column 'region': .* hold the text 'NA', which is read as a missing value"):
        TableClassifier(model="linear", device="cpu").fit(X.assign(region=region), positive)


def test_cells_predicted_as_missing_are_said(rows):
    X, positive = rows
    model = TableClassifier(model="linear", device="cpu").fit(X, positive)
    odd = X.head(10).astype({"b": object})
    odd.iloc[:3, 1] = "oops"
    with pytest.warns(UserWarning, match=r"b: 3 of 10 cells are not numbers \(`oops`\), read as missing"):
        model.predict(odd)


@pytest.mark.parametrize("epochs", [0, -1, 10.0, "10", True])
def test_counts_must_be_whole_numbers(rows, epochs):
    X, positive = rows
    with pytest.raises(ValueError, match="epochs must be None or a whole number of at least 1"):
        TableClassifier(model="mlp", epochs=epochs, device="cpu").fit(X, positive)


def test_a_model_fitted_on_an_array_loads_without_names(rows, tmp_path):
    X, positive = rows
    array = X[["a", "b"]].to_numpy()
    TableClassifier(model="linear", device="cpu").fit(array, positive).save(tmp_path / "m.safetensors")
    loaded = TableClassifier.load(tmp_path / "m.safetensors")
    assert not hasattr(loaded, "feature_names_in_")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.mean(loaded.predict(array) == positive) > 0.9


def test_date_classes_are_refused(rows):
    X, positive = rows
    days = np.where(positive, np.datetime64("2024-01-01"), np.datetime64("2024-01-02"))
    with pytest.raises(ValueError, match="classes that are dates are not supported"):
        TableClassifier(model="linear", device="cpu").fit(X, days)
