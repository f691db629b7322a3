//! The image jobs: `image fit` on the bundled drawing, `image render` of the checkpoint at
//! another size, and the `image encode` / `image decode` round trip through CSV.

use crate::common::*;
use io::image::{ColorMode, load_picture};
use std::path::Path;

/// Fits the bundled drawing at 48x48 for a short run; returns the run folder's metrics.
fn fit_drawing(dir: &Path) -> serde_json::Value {
    let o = train(&["image", "fit", "--size", "48", "--steps", "100"], dir);
    assert_success(&o);
    assert!(stdout(&o).contains("ink IoU"), "{}", describe(&o));
    metrics(dir)
}

/// `image fit` prints the library fit's scores and leaves a run folder (its figures are the
/// library's, tested in `train`'s image tests); `image render` then redraws the fit at
/// twice the size, scoring it against the original file.
#[test]
fn fit_then_render_larger() {
    let dir = tmp();
    let m = fit_drawing(dir.path());
    assert_run_files(dir.path());
    for f in ["original.png", "reconstruction.png"] {
        assert_eq!(png_size(&dir.path().join(f)), (48, 48), "{f}");
    }
    // Side by side, enlarged to be seen, under a band of labels.
    let (cw, ch) = png_size(&dir.path().join("comparison.png"));
    assert!(cw > 2 * 48 && ch > 48, "comparison.png is {cw}x{ch}");
    assert_eq!(num(&m, "steps"), 100.0, "{m}");
    assert_eq!((num(&m, "width"), num(&m, "height")), (48.0, 48.0), "{m}");

    let png = dir.path().join("big.png");
    let o = run([
        "image".as_ref(),
        "render".as_ref(),
        dir.path().as_os_str(),
        "--size".as_ref(),
        "96".as_ref(),
        "--device".as_ref(),
        "cpu".as_ref(),
        "--reference".as_ref(),
        data("drawing.png").as_os_str(),
        "-o".as_ref(),
        png.as_os_str(),
    ]);
    assert_success(&o);
    let out = stdout(&o);
    for score in ["PSNR", "pixel accuracy", "ink IoU"] {
        assert!(out.contains(score), "render should print {score}: {out}");
    }
    let picture = load_picture(&png, ColorMode::Grayscale).expect("render output unreadable");
    assert_eq!((picture.width, picture.height), (96, 96));
    // A drawing: mostly white paper with some dark ink, not a blank or black page.
    let ink = picture.data.iter().filter(|&&v| v < 0.5).count() as f64 / 96.0 / 96.0;
    assert!((0.01..0.5).contains(&ink), "ink fraction {ink}");
}

/// Rendering the checkpoint file itself (not its folder) at a small size works too.
#[test]
fn render_accepts_the_checkpoint_file() {
    let dir = tmp();
    let o = train(
        &[
            "image", "fit", "--size", "16", "--steps", "5", "--hidden", "16x2",
        ],
        dir.path(),
    );
    assert_success(&o);
    let png = dir.path().join("small.png");
    let o = run([
        "image".as_ref(),
        "render".as_ref(),
        dir.path().join("model.safetensors").as_os_str(),
        "--size".as_ref(),
        "24".as_ref(),
        "--device".as_ref(),
        "cpu".as_ref(),
        "-o".as_ref(),
        png.as_os_str(),
    ]);
    assert_success(&o);
    assert_eq!(png_size(&png), (24, 24));
}

/// Runs `image encode` then `image decode`, returning the decoded PNG's path.
fn round_trip(dir: &Path, image: &Path, color: bool) -> std::path::PathBuf {
    let csv = dir.join("pixels.csv");
    let png = dir.join("decoded.png");
    let mut args = vec![
        "image".as_ref(),
        "encode".as_ref(),
        image.as_os_str(),
        "-o".as_ref(),
        csv.as_os_str(),
    ];
    if color {
        args.push("--color".as_ref());
    }
    let o = run(args);
    assert_success(&o);
    let header = std::fs::read_to_string(&csv).expect("no CSV written");
    let first = header.lines().next().unwrap_or_default().to_string();
    assert_eq!(first, if color { "x,y,r,g,b" } else { "x,y,value" });
    let o = run([
        "image".as_ref(),
        "decode".as_ref(),
        csv.as_os_str(),
        "-o".as_ref(),
        png.as_os_str(),
    ]);
    assert_success(&o);
    png
}

/// The bundled drawing survives image -> CSV -> image with every pixel unchanged.
#[test]
fn encode_decode_round_trip_is_exact() {
    let dir = tmp();
    let original = data("drawing.png");
    let png = round_trip(dir.path(), &original, false);
    let a = load_picture(&original, ColorMode::Grayscale).unwrap();
    let b = load_picture(&png, ColorMode::Grayscale).unwrap();
    assert_eq!((b.width, b.height, b.channels), (512, 512, 1));
    assert!(a == b, "pixels differ after the round trip");
}

/// A generated, non-square RGB image survives the --color round trip exactly.
#[test]
fn color_round_trip_is_exact() {
    let dir = tmp();
    let src = dir.path().join("rgb.png");
    let img = image::RgbImage::from_fn(23, 17, |x, y| {
        image::Rgb([
            (x * 11) as u8,
            (y * 15) as u8,
            ((x * 7 + y * 13) % 256) as u8,
        ])
    });
    img.save(&src).unwrap();
    let png = round_trip(dir.path(), &src, true);
    let a = load_picture(&src, ColorMode::Rgb).unwrap();
    let b = load_picture(&png, ColorMode::Rgb).unwrap();
    assert_eq!((b.width, b.height, b.channels), (23, 17, 3));
    assert!(a == b, "pixels differ after the colour round trip");
    // The picture really is coloured: its channels differ.
    assert!(a.data.chunks_exact(3).any(|p| p[0] != p[1]));
}

/// `image encode` holds the compact copy (a byte a value), not the `f32` picture: a colour
/// image whose `f32` picture exceeds the memory budget but whose bytes fit is encoded, rows
/// exact.
#[test]
fn encode_holds_a_byte_a_value() {
    let dir = tmp();
    let src = dir.path().join("rgb.png");
    let img = image::RgbImage::from_fn(1000, 1000, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x + 3 * y) % 256) as u8])
    });
    img.save(&src).unwrap();
    let csv = dir.path().join("pixels.csv");
    // 3 MB of bytes fit in 8 MB; the 12 MB f32 picture does not.
    let o = command([
        "image".as_ref(),
        "encode".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        csv.as_os_str(),
    ])
    .env("IRON_LEARN_MEMORY_LIMIT", "8M")
    .output()
    .unwrap();
    assert_success(&o);
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("x,y,r,g,b"));
    assert_eq!(lines.next(), Some("0,0,0,0,0"));
    let last = format!("999,999,{},{},{}", 999 % 256, 999 % 256, (999 * 4) % 256);
    assert_eq!(text.lines().last(), Some(last.as_str()));
    assert_eq!(text.lines().count(), 1 + 1_000_000);
}
