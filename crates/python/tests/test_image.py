"""The image fit from Python: the command line's fit and drawings, from a file or an array."""

import json

import numpy as np
import pandas as pd
import pytest

from conftest import DATA
from iron_learn import ImageModel, TableRegressor, fit_image

DRAWING = DATA / "drawing.png"
STEPS = 30


@pytest.fixture(scope="module")
def fitted():
    return fit_image(DRAWING, steps=STEPS, device="cpu")


def pixels_of(cli, png, tmp_path):
    """The 8-bit pixels of a PNG, as the command line reads them (`image encode`)."""
    cli("image", "encode", png, "--output", tmp_path / "pixels.csv")
    table = pd.read_csv(tmp_path / "pixels.csv")
    width, height = table["x"].max() + 1, table["y"].max() + 1
    values = table.drop(columns=["x", "y"]).to_numpy()
    return values.reshape(height, width, -1).squeeze()


def test_the_same_fit_as_the_command_line(cli, fitted, tmp_path):
    cli("image", "fit", DRAWING, "--steps", STEPS, "--device", "cpu", "--quiet", "--out", tmp_path / "run")
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert fitted.psnr == metrics["psnr"]
    assert fitted.model_ == ImageModel.load(tmp_path / "run").model_
    assert (fitted.width, fitted.height, fitted.channels) == (metrics["width"], metrics["height"], 1)


def test_drawn_in_memory_as_the_command_line_draws_it(cli, fitted, tmp_path):
    fitted.save(tmp_path / "model.safetensors")
    cli("image", "render", tmp_path / "model.safetensors", "--size", 300, "--output", tmp_path / "theirs.png")
    ours = fitted.render(300)
    assert ours.shape == (300, 300) and ours.dtype == np.uint8
    expected = pixels_of(cli, tmp_path / "theirs.png", tmp_path)
    if expected.max() <= 1:  # encode writes values in [0, 1]
        expected = np.round(expected * 255)
    np.testing.assert_array_equal(ours, expected.astype(np.uint8))
    assert fitted.save_png(tmp_path / "ours.png", size=300) == (300, 300)
    assert (tmp_path / "ours.png").read_bytes() == (tmp_path / "theirs.png").read_bytes()


def test_any_size_and_aspect(fitted):
    assert fitted.render(120, 40).shape == (40, 120)
    assert fitted.render(height=50).shape == (50, 50)
    with pytest.raises(ValueError, match="width must be a positive number of pixels"):
        fitted.render(0)


def test_an_array_fits_as_its_file(fitted, cli, tmp_path):
    pixels = pixels_of(cli, DRAWING, tmp_path)
    if pixels.max() <= 1:
        pixels = np.round(pixels * 255)
    again = fit_image(pixels.astype(np.uint8), steps=STEPS, device="cpu")
    assert again.model_ == fitted.model_
    as_floats = fit_image(pixels.astype(np.float64) / 255, steps=STEPS, device="cpu")
    assert as_floats.model_ == fitted.model_
    # Whole numbers of 0 to 255 in any integer type are 8-bit values.
    as_ints = fit_image(pixels.astype(np.int64), steps=STEPS, device="cpu")
    assert as_ints.model_ == fitted.model_


def test_options_and_models_that_are_refused(fitted, tmp_path):
    with pytest.raises(TypeError, match="unexpected options: stepz"):
        fit_image(DRAWING, stepz=3)
    with pytest.raises(FileNotFoundError):
        fit_image(tmp_path / "missing.png", steps=3)
    with pytest.raises(ValueError, match="arch must be"):
        fit_image(DRAWING, arch="cnn", steps=3)
    with pytest.raises(ValueError, match=r"floats holds values in \[0, 1\]"):
        fit_image(np.full((8, 8), 3.0))
    with pytest.raises(ValueError, match=r"got uint16 \(scale it: pixels / 255.0 for 8-bit values, / 65535.0"):
        fit_image(np.full((8, 8), 40000, dtype=np.uint16))
    with pytest.raises(ValueError, match="steps must be None or a whole number of at least 1"):
        fit_image(DRAWING, steps=0)
    table = pd.read_csv(DATA / "regression.csv")
    model = TableRegressor(device="cpu", model="linear").fit(table.drop(columns="y"), table["y"])
    with pytest.raises(ValueError, match="this is a regression model, not an image model"):
        ImageModel(model.model_)


def test_a_size_budget_keeps_the_float16_file_of_the_command_line(cli, tmp_path):
    fitted = fit_image(DRAWING, params_per_pixel=1, steps=STEPS, device="cpu")
    cli("image", "fit", DRAWING, "--params-per-pixel", 1, "--steps", STEPS, "--device", "cpu",
        "--quiet", "--out", tmp_path / "run")
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert fitted.params_per_pixel == metrics["params_per_pixel"] <= 1
    assert fitted.stored_psnr == metrics["stored"]["psnr"]
    assert fitted.model_ == (tmp_path / "run" / "model-f16.safetensors").read_bytes()
    # At most a parameter a pixel, two bytes each, and a short header.
    assert len(fitted.model_) < 2.1 * fitted.width * fitted.height
    assert fitted.render().shape == (fitted.height, fitted.width)
