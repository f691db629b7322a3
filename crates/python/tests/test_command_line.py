"""The estimators against the command line: the same rows and seed give the same model
file, bit for bit, and the same predictions as `iron-learn mlp` then `iron-learn predict`;
model files and ONNX graphs go both ways."""

import io

import numpy as np
import pandas as pd
import pytest

from conftest import DATA
from iron_learn import TableClassifier, TableRegressor

TABLES = [
    ("regression.csv", "y", TableRegressor),
    ("classification.csv", "label", TableClassifier),
    ("circles.csv", "label", TableClassifier),
]


def mixed_table(rows=240):
    """A table of every kind of column a DataFrame holds: numbers with gaps, words,
    categories, yes/no, dates; the target depends on several of them."""
    rng = np.random.default_rng(5)
    size = rng.normal(50, 15, rows)
    size[rng.random(rows) < 0.1] = np.nan
    colour = rng.choice(["red", "green", "blue"], rows)
    grade = pd.Categorical(rng.choice(["low", "mid", "high"], rows), categories=["low", "mid", "high"])
    member = rng.random(rows) < 0.4
    day = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365, rows), unit="D")
    price = np.nan_to_num(size, nan=50) * 2 + (colour == "red") * 30 + member * 10 + rng.normal(0, 3, rows)
    return pd.DataFrame({"size": size, "colour": colour, "grade": grade, "member": member,
                         "day": day, "price": price})


def split(frame):
    """The first four fifths of the rows, and the rest."""
    n = len(frame) * 4 // 5
    return frame.iloc[:n], frame.iloc[n:]


def command_line(cli, tmp_path, train, test, target, task):
    """The command line's model and predictions for `test`, trained on every row of
    `train` (`--test-fraction 0`, as `fit` trains)."""
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    run = tmp_path / "run"
    cli("mlp", "--data", tmp_path / "train.csv", "--test-fraction", "0",
        "--target", target, "--task", task, "--device", "cpu", "--quiet", "--out", run)
    rows = test.drop(columns=target)
    rows.to_csv(tmp_path / "rows.csv", index=False)
    out = cli("predict", run, "--data", tmp_path / "rows.csv")
    return run, pd.read_csv(io.StringIO(out), dtype={"prediction": str})


def assert_same_answers(estimator, answers, rows):
    """The estimator's answers for `rows` are the command line's, bit for bit (its numbers
    are the shortest text of each float32)."""
    if isinstance(estimator, TableRegressor):
        expected = answers["prediction"].astype(np.float32).to_numpy()
        np.testing.assert_array_equal(estimator.predict(rows).astype(np.float32), expected)
        return
    proba = estimator.predict_proba(rows)
    for i, c in enumerate(estimator.classes_):
        column = answers[f"probability_{c}"].astype(np.float32).to_numpy()
        np.testing.assert_array_equal(proba[:, i].astype(np.float32), column)
    labels = estimator.predict(rows)
    np.testing.assert_array_equal([str(v) for v in labels], answers["prediction"].to_numpy())


@pytest.mark.parametrize("name,target,kind", TABLES)
def test_the_same_model_and_predictions_as_the_command_line(cli, tmp_path, name, target, kind):
    train, test = split(pd.read_csv(DATA / name))
    run, answers = command_line(cli, tmp_path, train, test, target, kind._task)
    estimator = kind(device="cpu").fit(train.drop(columns=target), train[target])
    assert estimator.model_ == kind.load(run).model_
    assert_same_answers(estimator, answers, test.drop(columns=target))


def test_a_frame_of_every_kind_of_column_as_the_command_line_reads_its_file(cli, tmp_path):
    train, test = split(mixed_table())
    run, answers = command_line(cli, tmp_path, train, test, "price", "regression")
    estimator = TableRegressor(device="cpu").fit(train.drop(columns="price"), train["price"])
    assert estimator.model_ == TableRegressor.load(run).model_
    assert_same_answers(estimator, answers, test.drop(columns="price"))
    assert list(estimator.feature_names_in_) == ["size", "colour", "grade", "member", "day"]
    assert estimator.score(test.drop(columns="price"), test["price"]) > 0.9


def test_a_saved_model_is_read_by_the_command_line(cli, tmp_path):
    frame = pd.read_csv(DATA / "classification.csv")
    estimator = TableClassifier(device="cpu").fit(frame.drop(columns="label"), frame["label"])
    estimator.save(tmp_path / "model.safetensors")
    frame.drop(columns="label").to_csv(tmp_path / "rows.csv", index=False)
    out = cli("predict", tmp_path / "model.safetensors", "--data", tmp_path / "rows.csv")
    answers = pd.read_csv(io.StringIO(out), dtype={"prediction": str})
    assert_same_answers(estimator, answers, frame.drop(columns="label"))
    again = TableClassifier.load(tmp_path / "model.safetensors")
    np.testing.assert_array_equal(again.classes_, estimator.classes_)
    np.testing.assert_array_equal(again.predict(frame.drop(columns="label")),
                                  estimator.predict(frame.drop(columns="label")))


@pytest.mark.parametrize("half", [False, True])
def test_to_onnx_writes_the_graph_of_export(cli, tmp_path, half):
    frame = pd.read_csv(DATA / "regression.csv")
    estimator = TableRegressor(device="cpu", model="mlp", epochs=3).fit(frame.drop(columns="y"), frame["y"])
    estimator.save(tmp_path / "model.safetensors")
    estimator.to_onnx(tmp_path / "ours.onnx", half=half)
    cli("export", tmp_path / "model.safetensors", "--output", tmp_path / "theirs.onnx",
        *(["--half"] if half else []))
    assert (tmp_path / "ours.onnx").read_bytes() == (tmp_path / "theirs.onnx").read_bytes()


def test_loading_the_other_task_is_refused(tmp_path):
    frame = pd.read_csv(DATA / "regression.csv")
    TableRegressor(device="cpu", model="linear").fit(frame.drop(columns="y"), frame["y"]).save(tmp_path / "m.safetensors")
    with pytest.raises(ValueError, match="holds a regression model, not a classification model"):
        TableClassifier.load(tmp_path / "m.safetensors")


def test_folds_bag_the_default_model_as_the_command_line_does(cli, tmp_path):
    """`folds=5` is the command line's default on a small table: the same ensemble of the
    folds' networks, bit for bit, and the same predictions."""
    train, test = split(pd.read_csv(DATA / "classification.csv"))
    train.to_csv(tmp_path / "train.csv", index=False)
    run = tmp_path / "run"
    cli("mlp", "--data", tmp_path / "train.csv", "--target", "label", "--task", "classification",
        "--device", "cpu", "--quiet", "--out", run)
    estimator = TableClassifier(device="cpu", folds=5).fit(train.drop(columns="label"), train["label"])
    assert estimator.model_ == TableClassifier.load(run).model_
    assert any(line.startswith("model kept: the mean over 5 folds of ") for line in estimator.report_)
    rows = test.drop(columns="label")
    rows.to_csv(tmp_path / "rows.csv", index=False)
    out = cli("predict", run, "--data", tmp_path / "rows.csv")
    assert_same_answers(estimator, pd.read_csv(io.StringIO(out), dtype={"prediction": str}), rows)
    estimator.to_onnx(tmp_path / "m.onnx")
    assert (tmp_path / "m.onnx").stat().st_size > 0


def test_the_small_portfolio_is_the_command_line_one(cli, tmp_path):
    """`portfolio="small"` trains what `--portfolio small` trains: the same model file, bit
    for bit, and no network without weight decay in the report."""
    train, _ = split(pd.read_csv(DATA / "regression.csv"))
    train.to_csv(tmp_path / "train.csv", index=False)
    run = tmp_path / "run"
    cli("mlp", "--data", tmp_path / "train.csv", "--target", "y", "--folds", "3",
        "--portfolio", "small", "--epochs", "5", "--device", "cpu", "--quiet", "--out", run)
    estimator = TableRegressor(device="cpu", folds=3, portfolio="small", epochs=5)
    estimator.fit(train.drop(columns="y"), train["y"])
    assert estimator.model_ == TableRegressor.load(run).model_
    assert not any("without weight decay" in line for line in estimator.report_)
    full = TableRegressor(device="cpu", folds=3, epochs=5).fit(train.drop(columns="y"), train["y"])
    assert any("without weight decay" in line for line in full.report_)
