"""Type stubs of the extension module ``iron_learn._native``: the Rust library's table job,
predictions, model files and image fit, called by the package's Python modules."""

from typing import Optional, TypedDict

__version__: str
DEFAULT_SEED: int

class TableAnswers(TypedDict):
    values: bytes
    rows: int
    width: int
    labels: Optional[list[int]]
    classes: Optional[list[str]]
    notes: list[str]

class ModelInfo(TypedDict):
    task: str
    inputs: list[str]
    targets: list[str]
    classes: Optional[list[str]]
    size: Optional[tuple[int, int]]

class ImageFitted(TypedDict):
    model: bytes
    psnr: float
    ssim: float
    params_per_pixel: float
    stored_psnr: Optional[float]
    line: str

def fit_table(
    data: str,
    target: str,
    run_dir: str,
    spec: dict[str, object],
    device: str = "cpu",
    verbose: bool = False,
    threads: Optional[int] = None,
) -> tuple[bytes, list[str]]: ...
def predict_table(model: bytes, data: str, threads: Optional[int] = None) -> TableAnswers: ...
def model_info(model: bytes) -> ModelInfo: ...
def read_model(path: str) -> bytes: ...
def write_model(model: bytes, path: str) -> None: ...
def write_onnx(model: bytes, path: str, half: bool = False) -> None: ...
def fit_image(
    image: str,
    run_dir: str,
    spec: dict[str, object],
    device: str = "cpu",
    verbose: bool = False,
    threads: Optional[int] = None,
) -> ImageFitted: ...
def render_image(model: bytes, width: int, height: int, threads: Optional[int] = None) -> tuple[bytes, int]: ...
def render_png(model: bytes, path: str, longest_side: int) -> tuple[int, int]: ...
def write_png(path: str, pixels: bytes, width: int, height: int, channels: int) -> None: ...
