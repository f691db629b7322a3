#!/usr/bin/env python3
"""Draw an image model exported by `iron-learn export --format onnx` with onnxruntime.

    python3 onnx_render.py MODEL.onnx WIDTH HEIGHT OUT

Evaluates the graph on every pixel of a WIDTH x HEIGHT picture, using the coordinate
convention stored in the file (pixel i of n at -1 + 2 i / (n - 1), x along a row, y down
the image), in batches of 65,536 pixels. OUT ending in `.ppm` or `.pgm` gets an 8-bit
picture (colour or gray); any other name gets the raw values: float32, little-endian,
row after row, the channels of each pixel together (HEIGHT x WIDTH x channels). Prints the
output's shape and the model's weight precision. Needs numpy and onnxruntime only.
"""

import sys
import time

import numpy as np
import onnxruntime as ort

BATCH = 1 << 16


def pixel_coords(n):
    """The coordinates of the n pixels of a side, exactly as iron-learn computes them."""
    if n <= 1:
        return np.zeros(max(n, 0), dtype=np.float32)
    return (2.0 * np.arange(n, dtype=np.float64) / (n - 1) - 1.0).astype(np.float32)


def render(path, width, height):
    """The model's `pixels` output on the width x height grid, as [height, width, channels]."""
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    xs, ys = pixel_coords(width), pixel_coords(height)
    grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    parts = [session.run(None, {name: grid[i : i + BATCH]})[0] for i in range(0, len(grid), BATCH)]
    values = np.concatenate(parts).astype(np.float32)
    meta = session.get_modelmeta().custom_metadata_map
    return values.reshape(height, width, -1), meta.get("weight_precision", "float32")


def write_netpbm(path, values):
    """An 8-bit PPM (3 channels) or PGM (1 channel) of values in [0, 1]."""
    height, width, channels = values.shape
    magic = {1: b"P5", 3: b"P6"}.get(channels)
    if magic is None:
        sys.exit(f"error: cannot write {channels} channels as a netpbm picture")
    data = np.round(np.clip(values, 0.0, 1.0) * 255.0).astype(np.uint8)
    with open(path, "wb") as f:
        f.write(magic + f"\n{width} {height}\n255\n".encode())
        f.write(data.tobytes())


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    path, width, height, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    if width < 1 or height < 1:
        sys.exit("error: WIDTH and HEIGHT must be at least 1")
    started = time.perf_counter()
    values, precision = render(path, width, height)
    if out.endswith((".ppm", ".pgm")):
        write_netpbm(out, values)
    else:
        values.astype("<f4").tofile(out)
    seconds = time.perf_counter() - started
    print(f"{values.shape[0]}x{values.shape[1]}x{values.shape[2]} ({precision} weights) in {seconds:.2f} s")


if __name__ == "__main__":
    main()
