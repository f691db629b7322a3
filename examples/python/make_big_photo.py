#!/usr/bin/env python3
"""Make a very large RGB test photo (a PNG) from a small one, to measure fits of gigapixel
images (docs/BENCHMARKS.md).

    iron-learn image encode photo.jpg -o photo.csv
    python3 make_big_photo.py photo.csv big.png --width 30000 --height 20000 [--scale 8]

The photo's pixels come from the `x,y,r,g,b` CSV that `iron-learn image encode` writes. The
photo is first enlarged `--scale` times (bilinear; 1 keeps it as it is; 8 makes 5120x3416
tiles of a 640x427 photo, smooth at the pixel scale like a real gigapixel photo), then tiled
over the output in mirrored copies (every other tile flipped left-right, every other row of tiles
top-bottom, so that tile edges meet without seams) under a slow brightness ramp (x 0.85 to
1.15 across, x 0.9 to 1.1 down), so that no two tiles are alike. Rows are compressed (zlib
level 1) and written as they are made: memory stays that of one tile period. Needs numpy.
"""

import argparse
import struct
import zlib

import numpy as np


def read_photo(path):
    """The photo of an `x,y,r,g,b` CSV as an (h, w, 3) uint8 array."""
    d = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int32)
    if d.ndim != 2 or d.shape[1] != 5:
        raise SystemExit(f"{path}: expected x,y,r,g,b rows (iron-learn image encode of a colour image)")
    w, h = d[:, 0].max() + 1, d[:, 1].max() + 1
    img = np.zeros((h, w, 3), np.uint8)
    img[d[:, 1], d[:, 0]] = d[:, 2:5]
    return img


def enlarge(img, scale):
    """Bilinear enlargement by a whole factor (pixel centres kept aligned)."""
    if scale == 1:
        return img
    h, w = img.shape[:2]

    def axis(n):
        pos = (np.arange(n * scale) + 0.5) / scale - 0.5
        pos = np.clip(pos, 0, n - 1)
        lo = np.floor(pos).astype(int)
        hi = np.minimum(lo + 1, n - 1)
        return lo, hi, (pos - lo)[:, None]

    f = img.astype(np.float32)
    lo, hi, t = axis(h)
    f = f[lo] * (1 - t[:, :, None]) + f[hi] * t[:, :, None]
    lo, hi, t = axis(w)
    f = f[:, lo] * (1 - t)[None, :, :] + f[:, hi] * t[None, :, :]
    return np.clip(np.round(f), 0, 255).astype(np.uint8)


def chunk(kind, data):
    c = struct.pack(">I", len(data)) + kind + data
    return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("photo_csv")
    p.add_argument("out")
    p.add_argument("--width", type=int, default=30000)
    p.add_argument("--height", type=int, default=20000)
    p.add_argument("--scale", type=int, default=1)
    a = p.parse_args()
    img = enlarge(read_photo(a.photo_csv), a.scale)
    period = np.concatenate(
        [
            np.concatenate([img, img[:, ::-1]], 1),
            np.concatenate([img[::-1], img[::-1, ::-1]], 1),
        ],
        0,
    )
    ph, pw = period.shape[:2]
    W, H = a.width, a.height
    cols = np.arange(W) % pw
    ramp_x = (0.85 + 0.3 * np.arange(W) / W)[:, None]
    with open(a.out, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0)))
        z = zlib.compressobj(1)
        parts = []
        for y in range(H):
            row = period[y % ph][cols].astype(np.float32) * (ramp_x * (0.9 + 0.2 * y / H))
            parts.append(z.compress(b"\x00" + np.clip(row, 0, 255).astype(np.uint8).tobytes()))
            if y % 256 == 255:
                f.write(chunk(b"IDAT", b"".join(parts)))
                parts = []
        parts.append(z.flush())
        f.write(chunk(b"IDAT", b"".join(parts)))
        f.write(chunk(b"IEND", b""))


if __name__ == "__main__":
    main()
