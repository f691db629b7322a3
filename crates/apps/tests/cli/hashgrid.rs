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
    // (checked against the render in `onnx_runtime`) and to float16 safetensors, which
    // `image render` reads.
    let r = out.to_str().unwrap();
    assert_one_line_error(
        &run(["predict", r, "--x", "1"]),
        &["image model", "image render"],
    );
    let onnx = tmp.path().join("grid.onnx");
    assert_success(&run(["export", r, "-o", onnx.to_str().unwrap()]));
    assert!(onnx.is_file());
    let full = tmp.path().join("grid.safetensors");
    let half = tmp.path().join("grid-f16.safetensors");
    for (path, extra) in [(&full, None), (&half, Some("--half"))] {
        let args = ["export", r, "--format", "safetensors", "-o"];
        let args = args.iter().copied().chain([path.to_str().unwrap()]);
        assert_success(&run(args.chain(extra)));
    }
    let ratio = std::fs::metadata(&half).unwrap().len() as f64
        / std::fs::metadata(&full).unwrap().len() as f64;
    assert!(ratio < 0.6, "{ratio}");
    let drawn = tmp.path().join("from-half.png");
    let h = half.to_str().unwrap();
    assert_success(&run(["image", "render", h, "-o", drawn.to_str().unwrap()]));
    assert!(drawn.is_file());
}

/// `--params-per-pixel 1`: the summary line gives the parameters per pixel and the float16
/// file's size and PSNR; that file renders and exports to ONNX; a budget out of range is one
/// line naming the flag.
#[test]
fn a_budget_fit_reports_its_size_and_stores_float16() {
    let tmp = tmp();
    let photo = write_photo(tmp.path(), 96, 64);
    let out = tmp.path().join("run");
    let p = photo.to_str().unwrap();
    let o = train(
        &[
            "image",
            "fit",
            p,
            "--params-per-pixel",
            "1",
            "--steps",
            "40",
        ],
        &out,
    );
    assert_success(&o);
    let line = stdout(&o);
    assert!(
        line.contains("params/pixel") && line.contains("stored in float16"),
        "{line}"
    );
    let m = metrics(&out);
    assert!(num(&m, "params_per_pixel") <= 1.0, "{m}");
    assert!(num(&m["stored"], "bytes_per_pixel") < 3.0, "{m}");
    let stored = out.join("model-f16.safetensors");
    let s = stored.to_str().unwrap();
    let onnx = tmp.path().join("f16.onnx");
    assert_success(&run(["export", s, "-o", onnx.to_str().unwrap()]));
    let drawn = tmp.path().join("f16.png");
    assert_success(&run(["image", "render", s, "-o", drawn.to_str().unwrap()]));
    let bad = train(
        &["image", "fit", p, "--params-per-pixel", "0"],
        &tmp.path().join("b"),
    );
    assert_one_line_error(&bad, &["--params-per-pixel", "parameters per pixel"]);
    // The budget's network named as it is is accepted; another network is one line, and no
    // run folder is left.
    let named = tmp.path().join("named");
    let args = ["image", "fit", p, "--params-per-pixel", "1", "--steps", "5"];
    assert_success(&train(
        &[&args[..], &["--arch", "hashgrid"]].concat(),
        &named,
    ));
    assert!(named.join("model-f16.safetensors").exists());
    let siren = tmp.path().join("siren");
    let o = train(&[&args[..], &["--arch", "siren"]].concat(), &siren);
    assert_one_line_error(
        &o,
        &[
            "chooses a hash grid, not a siren network",
            "--arch hashgrid",
        ],
    );
    assert!(!siren.exists());
    // A grid the resolutions asked cannot make names only the options a budget takes.
    let coarse = tmp.path().join("coarse");
    let o = train(
        &[&args[..], &["--finest-resolution", "1"]].concat(),
        &coarse,
    );
    let line = assert_one_line_error(&o, &["above the finest resolution 1", "--base-resolution"]);
    assert!(!line.contains("--levels"), "{line}");
    assert!(!coarse.exists());
}
