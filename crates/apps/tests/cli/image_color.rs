//! Images as they are: colour images are fitted and encoded in colour by default (gray
//! ones in gray), `--size` sets the longer side and keeps the aspect ratio, photos are scored
//! by PSNR and SSIM (ink scores are for line art), `image render --threshold` draws black and
//! white.

use crate::common::*;
use std::path::{Path, PathBuf};

/// Writes a `w x h` PNG: colourful when `colour`, else gray levels stored as RGB.
pub fn write_png(dir: &Path, name: &str, w: u32, h: u32, colour: bool) -> PathBuf {
    let mut bytes = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let (a, b) = ((x * 255 / w) as u8, (y * 255 / h) as u8);
            if colour {
                bytes.extend([a, b, 255 - a / 2]);
            } else {
                let g = ((u32::from(a) + u32::from(b)) / 2) as u8;
                bytes.extend([g, g, g]);
            }
        }
    }
    let path = dir.join(name);
    image::save_buffer(&path, &bytes, w, h, image::ColorType::Rgb8).unwrap();
    path
}

fn fit(image: &Path, out: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "image",
        "fit",
        image.to_str().unwrap(),
        "--steps",
        "3",
        "--hidden",
        "16x2",
    ];
    args.extend(extra);
    let o = train(&args, out);
    assert_success(&o);
    metrics(out)
}

fn color_type(path: &Path) -> image::ColorType {
    image::open(path).unwrap().color()
}

/// A colour image is fitted in colour unless --gray; a gray image stored as RGB in gray
/// unless --color.
#[test]
fn colour_by_default() {
    let dir = tmp();
    let photo = write_png(dir.path(), "photo.png", 30, 20, true);
    let m = fit(&photo, &dir.path().join("c"), &[]);
    assert_eq!(num(&m, "channels"), 3.0);
    assert_eq!(
        color_type(&dir.path().join("c/reconstruction.png")),
        image::ColorType::Rgb8
    );
    // A photo is scored by PSNR and SSIM, not by ink.
    num(&m, "psnr");
    num(&m, "ssim");
    assert!(
        m.get("ink_iou").is_none() && m.get("pixel_accuracy").is_none(),
        "{m}"
    );

    let m = fit(&photo, &dir.path().join("g"), &["--gray"]);
    assert_eq!(num(&m, "channels"), 1.0);
    assert_eq!(
        color_type(&dir.path().join("g/reconstruction.png")),
        image::ColorType::L8
    );

    let gray = write_png(dir.path(), "gray.png", 30, 20, false);
    assert_eq!(
        num(&fit(&gray, &dir.path().join("a"), &[]), "channels"),
        1.0
    );
    assert_eq!(
        num(&fit(&gray, &dir.path().join("b"), &["--color"]), "channels"),
        3.0
    );
}

/// `image encode` keeps the image's channels.
#[test]
fn encode_keeps_the_channels() {
    let dir = tmp();
    for (colour, header) in [(true, "x,y,r,g,b"), (false, "x,y,value")] {
        let png = write_png(dir.path(), "in.png", 6, 4, colour);
        let csv = dir.path().join("out.csv");
        let o = run([
            "image",
            "encode",
            png.to_str().unwrap(),
            "-o",
            csv.to_str().unwrap(),
        ]);
        assert_success(&o);
        let text = std::fs::read_to_string(&csv).unwrap();
        assert_eq!(text.lines().next(), Some(header));
        assert_eq!(text.lines().count(), 1 + 24);
    }
}

/// `--size` sets the longer side and keeps the aspect ratio, landscape or portrait; `image
/// render --size` does the same from the fitted shape, and --threshold draws pure black and
/// white.
#[test]
fn size_keeps_the_aspect_ratio() {
    let dir = tmp();
    let wide = write_png(dir.path(), "wide.png", 40, 20, true);
    let m = fit(&wide, &dir.path().join("w"), &["--size", "16"]);
    assert_eq!((num(&m, "width"), num(&m, "height")), (16.0, 8.0), "{m}");
    assert_eq!(png_size(&dir.path().join("w/reconstruction.png")), (16, 8));
    let tall = write_png(dir.path(), "tall.png", 20, 30, true);
    let m = fit(&tall, &dir.path().join("t"), &["--size", "12"]);
    assert_eq!((num(&m, "width"), num(&m, "height")), (8.0, 12.0), "{m}");

    let png = dir.path().join("big.png");
    let o = run([
        "image",
        "render",
        dir.path().join("w").to_str().unwrap(),
        "--size",
        "50",
        "-d",
        "cpu",
        "--threshold",
        "0.5",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert_success(&o);
    assert_eq!(png_size(&png), (50, 25));
    let img = image::open(&png).unwrap().to_luma8();
    assert!(
        img.pixels().all(|p| p.0[0] == 0 || p.0[0] == 255),
        "black and white only"
    );
}
