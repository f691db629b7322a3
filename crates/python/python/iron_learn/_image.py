"""The image fit: a picture as a function ``(x, y) -> pixel``, as ``iron-learn image fit``
fits it, redrawn at any size."""

import os

import numpy as np

from . import _common, _native

#: The options of ``iron-learn image fit`` that :func:`fit_image` takes, by their names there.
OPTIONS = (
    "size", "arch", "hidden", "levels", "features", "log2_table_size", "base_resolution",
    "finest_resolution", "gray", "color", "threshold", "supersample", "lr", "steps", "epochs",
    "batch", "schedule", "params_per_pixel",
)


def fit_image(image, *, random_state=None, device="auto", n_jobs=None, verbose=0, **options):
    """Fits ``image`` (a file's path, or an array of ``height x width`` or ``height x width x
    channels`` values: 8-bit, or floats in ``[0, 1]``) and returns the :class:`ImageModel`.

    ``options`` are those of ``iron-learn image fit`` with underscores for dashes
    (``steps=300``, ``arch="siren"``, ``log2_table_size=16``, ``gray=True``...); what is left
    out takes the command line's default, so that the same options give the same model.
    """
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise TypeError(f"fit_image() got unexpected options: {', '.join(unknown)}; it takes {', '.join(OPTIONS)}")
    spec = {name: options.get(name) for name in OPTIONS}
    spec["gray"] = bool(spec["gray"])
    spec["color"] = bool(spec["color"])
    for name in ("hidden", "batch"):
        if spec[name] is not None:
            spec[name] = str(spec[name])
    for name in ("steps", "epochs", "size", "levels", "features", "supersample"):
        spec[name] = _common.count_of(name, spec[name])
    spec["seed"] = _common.seed_of(random_state)
    with _common.run_folder() as folder:
        path = image if isinstance(image, (str, os.PathLike)) else _write_array(folder, image)
        fitted = _native.fit_image(
            os.fspath(path),
            _common.run_dir(folder),
            spec,
            device=_common.device_of(device),
            verbose=bool(verbose),
            threads=_common.threads_of(n_jobs),
        )
    model = ImageModel(fitted["model"], psnr=fitted["psnr"], ssim=fitted["ssim"])
    model.summary = _common.report_lines([fitted["line"]])[0]
    model.params_per_pixel = fitted["params_per_pixel"]
    model.stored_psnr = fitted["stored_psnr"]
    if verbose:
        _common.print_report([model.summary])
    return model


def _write_array(folder, image):
    """Writes the picture in the array ``image`` as a PNG in ``folder``; returns its path."""
    pixels = np.asarray(image)
    if pixels.ndim == 3 and pixels.shape[2] == 1:
        pixels = pixels[:, :, 0]
    if pixels.ndim not in (2, 3) or (pixels.ndim == 3 and pixels.shape[2] != 3):
        raise ValueError(f"an image array is height x width, or height x width x 3; got shape {pixels.shape}")
    if np.issubdtype(pixels.dtype, np.integer) and pixels.size and 0 <= pixels.min() and pixels.max() <= 255:
        # Whole numbers of 0 to 255 (a list of ints, an int64 array) are 8-bit values.
        pixels = pixels.astype(np.uint8)
    if pixels.dtype != np.uint8:
        if not np.issubdtype(pixels.dtype, np.floating):
            raise ValueError(
                f"an image array holds 8-bit values (uint8) or floats in [0, 1]; got {pixels.dtype} "
                "(scale it: pixels / 255.0 for 8-bit values, / 65535.0 for 16-bit ones)"
            )
        values = pixels.astype(np.float64)
        if not np.all(np.isfinite(values)) or values.min() < 0 or values.max() > 1:
            raise ValueError("an image array of floats holds values in [0, 1] (or give 8-bit values)")
        pixels = np.round(values * 255).astype(np.uint8)
    height, width = pixels.shape[:2]
    channels = 1 if pixels.ndim == 2 else 3
    path = os.path.join(folder, "image.png")
    _native.write_png(path, np.ascontiguousarray(pixels).tobytes(), width, height, channels)
    return path


class ImageModel:
    """A fitted picture: redraw it at any size (:meth:`render`), write it as a PNG
    (:meth:`save_png`), a model file (:meth:`save`) or an ONNX graph (:meth:`to_onnx`).

    Attributes: ``psnr`` and ``ssim`` of the fit at its training size (``None`` for a model
    read from a file), ``width`` and ``height`` of the picture fitted, ``channels`` (1 or 3),
    ``params_per_pixel``, ``stored_psnr`` (a fit within a size budget: the PSNR of the model
    as stored in float16, which ``model_`` then holds), ``model_`` the model file's bytes.
    """

    def __init__(self, model, psnr=None, ssim=None):
        info = _native.model_info(model)
        if info["task"] != "image":
            raise ValueError(f"this is a {info['task']} model, not an image model")
        self.model_ = bytes(model)
        self.psnr = psnr
        self.ssim = ssim
        self.width, self.height = info["size"]
        self.channels = len(info["targets"])
        self.summary = None
        self.params_per_pixel = None
        self.stored_psnr = None

    def __repr__(self):
        psnr = "" if self.psnr is None else f", psnr={self.psnr:.2f}"
        return f"ImageModel({self.width}x{self.height}, channels={self.channels}{psnr})"

    @classmethod
    def load(cls, path):
        """The image model in ``path``: a model file, or a run folder of ``iron-learn image fit``."""
        return cls(_native.read_model(os.fspath(path)))

    def render(self, width=None, height=None, n_jobs=None):
        """The picture drawn ``width x height`` pixels (one left out keeps the fitted aspect
        ratio; both: the fitted size), as 8-bit values: ``height x width`` (gray) or
        ``height x width x 3``."""
        width, height = self._size(width, height)
        data, channels = _native.render_image(self.model_, width, height, threads=_common.threads_of(n_jobs))
        pixels = np.frombuffer(data, dtype=np.uint8)
        shape = (height, width) if channels == 1 else (height, width, channels)
        return pixels.reshape(shape)

    def _size(self, width, height):
        for name, value in (("width", width), ("height", height)):
            if value is not None and (not isinstance(value, (int, np.integer)) or value < 1):
                raise ValueError(f"{name} must be a positive number of pixels, not {value!r}")
        if width is None and height is None:
            return self.width, self.height
        if width is None:
            return max(1, round(self.width * height / self.height)), int(height)
        if height is None:
            return int(width), max(1, round(self.height * width / self.width))
        return int(width), int(height)

    def save_png(self, path, size=None):
        """Draws the picture into a PNG at ``path`` with its longer side ``size`` pixels
        (``None``: the fitted size), band by band, whatever the size; returns (width, height)."""
        size = max(self.width, self.height) if size is None else size
        return _native.render_png(self.model_, os.fspath(path), int(size))

    def save(self, path):
        """Writes the model file ``iron-learn image render`` and ``predict`` read."""
        _native.write_model(self.model_, os.fspath(path))

    def to_onnx(self, path, half=False):
        """Writes the ONNX graph ``iron-learn export`` writes (``half``: float16 weights)."""
        _native.write_onnx(self.model_, os.fspath(path), half=half)
