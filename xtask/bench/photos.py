"""The photos of the size-budget benchmark (docs/BENCHMARKS.md), as 640x427 PNGs.

    python3 xtask/bench/photos.py /tmp/photos

Every photo comes from scikit-learn's or scikit-image's bundled samples (none generated):
each is cropped to the 3:2 aspect of 640x427 around its centre, then resized to 640x427
with Lanczos filtering (Pillow).
"""

import sys
from pathlib import Path

import numpy as np
from PIL import Image

WIDTH, HEIGHT = 640, 427

# name -> (kind, loader)
PHOTOS = {
    "china": ("landscape", lambda: _sklearn("china.jpg")),
    "flower": ("flowers", lambda: _sklearn("flower.jpg")),
    "astronaut": ("people", lambda: _skimage("astronaut")),
    "text": ("text", lambda: _skimage("text")),
    "ihc": ("microscopy", lambda: _skimage("immunohistochemistry")),
    "hubble": ("astronomy", lambda: _skimage("hubble_deep_field")),
}


def _sklearn(name):
    from sklearn.datasets import load_sample_image

    return load_sample_image(name)


def _skimage(name):
    import skimage.data

    return getattr(skimage.data, name)()


def to_size(pixels: np.ndarray) -> Image.Image:
    """The centre crop of `pixels` at 640:427, resized to 640x427."""
    image = Image.fromarray(pixels)
    w, h = image.size
    if w * HEIGHT > h * WIDTH:  # too wide: crop the sides
        cw, ch = round(h * WIDTH / HEIGHT), h
    else:  # too tall: crop top and bottom
        cw, ch = w, round(w * HEIGHT / WIDTH)
    left, top = (w - cw) // 2, (h - ch) // 2
    image = image.crop((left, top, left + cw, top + ch))
    return image.resize((WIDTH, HEIGHT), Image.LANCZOS)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, (kind, load) in PHOTOS.items():
        path = out / f"{name}.png"
        to_size(load()).save(path)
        print(f"{path} ({kind})")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/photos"))
