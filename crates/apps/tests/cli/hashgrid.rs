//! `image fit --arch hashgrid`: a photo fits well in few steps on sampled pixels, resumes,
//! renders larger. (The encoding's refusals and the architecture a photo and a drawing get
//! by default are the library's, tested in `train`'s image tests.)

use crate::common::*;
use std::path::{Path, PathBuf};

/// A smooth colour test photo of `w x h` pixels.
pub fn write_photo(dir: &Path, w: u32, h: u32) -> PathBuf {
    let mut bytes = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let (u, v) = (x as f32 / w as f32, y as f32 / h as f32);
            let r = 0.5 + 0.4 * (6.0 * u).sin() * (4.0 * v).cos();
            let g = 0.5 + 0.4 * (5.0 * (u + v)).sin();
            bytes.extend([(r * 255.0) as u8, (g * 255.0) as u8, (u * 200.0) as u8]);
        }
    }
    let path = dir.join("photo.png");
    image::save_buffer(&path, &bytes, w, h, image::ColorType::Rgb8).unwrap();
    path
}

fn config(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap()
}

#[test]
fn a_photo_fits_on_sampled_pixels_resumes_and_renders_larger() {
    let tmp = tmp();
    let photo = write_photo(tmp.path(), 48, 40);
    let out = tmp.path().join("run");
    let p = photo.to_str().unwrap();
    // 1920 pixels in batches of 500: random pixels at every step.
    let args = ["image", "fit", p, "--steps", "60", "--batch", "500"];
    let o = train(&args, &out);
    assert_success(&o);
    let c = config(&out);
    assert_eq!(
        c["options"]["arch"], "hashgrid",
        "a photo gets the hash grid"
    );
    assert_eq!(c["options"]["batch_pixels"], 500);
    assert_eq!(c["architecture"]["scale"]["finest"], 48);
    let m = metrics(&out);
    assert!(num(&m, "psnr") > 30.0, "{m}");
    // Resuming to 80 steps continues the same run.
    let more = [
        "image", "fit", p, "--steps", "80", "--batch", "500", "--resume",
    ];
    assert_success(&train(&more, &out));
    assert_eq!(num(&metrics(&out), "steps"), 80.0);
    let big = tmp.path().join("big.png");
    let o = run([
        "image",
        "render",
        out.to_str().unwrap(),
        "--size",
        "96",
        "-o",
        big.to_str().unwrap(),
        "--device",
        "cpu",
    ]);
    assert_success(&o);
    let img = image::open(&big).unwrap();
    assert_eq!((img.width(), img.height()), (96, 80));
    // `predict` reads the hash-grid run and points to `image render`; it exports to ONNX
    // (checked against the render in `onnx_runtime`), `--half` only to ONNX.
    let r = out.to_str().unwrap();
    assert_one_line_error(
        &run(["predict", r, "--x", "1"]),
        &["image model", "image render"],
    );
    let onnx = tmp.path().join("grid.onnx");
    assert_success(&run(["export", r, "-o", onnx.to_str().unwrap()]));
    assert!(onnx.is_file());
    let st = tmp.path().join("grid.safetensors");
    let half = ["export", r, "--format", "safetensors", "--half", "-o"];
    assert_one_line_error(
        &run(half.iter().copied().chain([st.to_str().unwrap()])),
        &["--half", "onnx"],
    );
    assert!(!st.exists());
}
