"""PSNR against size of fitted pictures, beside JPEG and WebP at the same bytes.

    python3 xtask/bench/photos.py /tmp/photos
    python3 xtask/bench/compact_images.py --bin target/release/iron-learn \
        --photos /tmp/photos --runs /tmp/compact-runs [--budget 1]

For every PNG in --photos: `image fit` with the default network and with
`--params-per-pixel BUDGET` (CPU, quiet), each timed; the default model exported as
float32 safetensors (`export --format safetensors`), the budget fit's float16 file as the fit
wrote it; then JPEG and WebP (Pillow) at the largest quality whose file is no larger than
that float16 file (JPEG: the better of 4:2:0 and 4:4:4 colour), scored with the same PSNR
(8-bit values, every channel). Prints a
Markdown table (docs/BENCHMARKS.md).
"""

import argparse
import io
import json
import subprocess
import time
from pathlib import Path

import numpy as np
from PIL import Image


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    """PSNR in dB of two 8-bit pictures (the mean over every value)."""
    err = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if err == 0 else 10 * np.log10(255.0**2 / err)


def fit(binary: str, photo: Path, out: Path, extra: list) -> dict:
    """Runs `image fit` into `out`; returns metrics.json with the wall time added."""
    cmd = [binary, "image", "fit", str(photo), "--device", "cpu", "--quiet", "--force"]
    start = time.monotonic()
    subprocess.run(cmd + ["-o", str(out)] + extra, check=True, capture_output=True)
    metrics = json.loads((out / "metrics.json").read_text())
    metrics["wall"] = time.monotonic() - start
    return metrics


def export_bytes(binary: str, run: Path) -> int:
    """Bytes of the run's model exported as float32 safetensors."""
    path = run / "export.safetensors"
    cmd = [binary, "export", str(run), "--format", "safetensors", "-o", str(path)]
    subprocess.run(cmd, check=True, capture_output=True)
    return path.stat().st_size


def codec_at(picture: Image.Image, fmt: str, most: int, **options):
    """(bytes, PSNR, quality) of `fmt` at the largest quality whose file is at most `most`
    bytes (None when even quality 1 is larger)."""
    reference = np.asarray(picture)
    best = None
    lo, hi = 1, 100
    while lo <= hi:
        q = (lo + hi) // 2
        buf = io.BytesIO()
        picture.save(buf, fmt, quality=q, **options)
        if buf.tell() <= most:
            decoded = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert(picture.mode))
            best = (buf.tell(), psnr(decoded, reference), q)
            lo = q + 1
        else:
            hi = q - 1
    return best


def png_bytes(picture: Image.Image) -> int:
    """Bytes of the picture as a lossless PNG (Pillow, optimized)."""
    buf = io.BytesIO()
    picture.save(buf, "PNG", optimize=True)
    return buf.tell()


def jpeg_at(picture: Image.Image, most: int):
    """The better JPEG within `most` bytes: colour subsampled (4:2:0, Pillow's default) or
    not (4:4:4)."""
    tries = [codec_at(picture, "JPEG", most, subsampling=s) for s in (0, 2)]
    return max((t for t in tries if t), key=lambda t: t[1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/iron-learn")
    ap.add_argument("--photos", default="/tmp/photos")
    ap.add_argument("--runs", default="/tmp/compact-runs")
    ap.add_argument("--budget", default="1")
    args = ap.parse_args()
    runs = Path(args.runs)
    rows = []
    for photo in sorted(Path(args.photos).glob("*.png")):
        picture = Image.open(photo)
        picture = picture.convert("L" if picture.mode in ("L", "LA") else "RGB")
        pixels = picture.width * picture.height
        base = fit(args.bin, photo, runs / f"{photo.stem}-default", [])
        base_bytes = export_bytes(args.bin, runs / f"{photo.stem}-default")
        small = fit(
            args.bin, photo, runs / f"{photo.stem}-budget", ["--params-per-pixel", args.budget]
        )
        stored = small["stored"]
        jpeg = jpeg_at(picture, stored["bytes"])
        webp = codec_at(picture, "WEBP", stored["bytes"])
        rows.append(
            f"| {photo.stem} | {base['psnr']:.2f} | {base['params_per_pixel']:.2f} "
            f"| {base_bytes / pixels:.2f} | {base['wall']:.1f} "
            f"| {small['psnr']:.2f} | {stored['psnr']:.2f} | {small['params_per_pixel']:.2f} "
            f"| {stored['bytes_per_pixel']:.2f} | {small['wall']:.1f} | {small['steps']} "
            f"| {jpeg[1]:.2f} (q{jpeg[2]}) | {webp[1]:.2f} (q{webp[2]}) "
            f"| {png_bytes(picture) / pixels:.2f} |"
        )
        print(rows[-1], flush=True)
    print()
    print(
        "| photo | default PSNR | params/px | bytes/px (f32) | s "
        f"| {args.budget} param/px: PSNR | stored f16 PSNR | params/px | bytes/px | s | steps "
        "| JPEG, same bytes | WebP, same bytes | PNG bytes/px |"
    )
    print("|---" * 14 + "|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
