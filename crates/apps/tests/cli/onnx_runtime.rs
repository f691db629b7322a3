//! A hash-grid photo fit exported to ONNX and drawn by onnxruntime
//! (`examples/python/onnx_render.py`) against `image render` of the same run: the float32
//! graph gives the library's pixel values within float32 rounding (`<= 1e-5`) and the same
//! 8-bit picture; the float16 graph stays above 60 dB PSNR from the float32 one (86 to
//! 93 dB measured on 512x512 fits). Skipped, with a note, without python3, numpy and
//! onnxruntime.

use crate::common::*;
use crate::hashgrid::write_photo;
use io::FittedModel;
use std::path::{Path, PathBuf};
use std::process::Command;
use tensor_cpu::CpuBackend;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/python/onnx_render.py")
}

/// Whether `python3` with numpy and onnxruntime is available; prints why not.
fn onnxruntime_ready() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import numpy, onnxruntime"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("note: skipped: python3 with numpy and onnxruntime is not available");
    }
    ok
}

/// The values onnxruntime computes for `model` on a `w x h` grid.
fn ort_render(model: &Path, w: usize, h: usize, out: &Path) -> Vec<f32> {
    let o = Command::new("python3")
        .arg(script())
        .arg(model)
        .args([w.to_string(), h.to_string()])
        .arg(out)
        .output()
        .expect("cannot run python3");
    assert!(
        o.status.success(),
        "onnx_render.py failed: {}",
        describe(&o)
    );
    let bytes = std::fs::read(out).unwrap();
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

#[test]
fn onnxruntime_draws_the_render_of_a_hash_grid_fit() {
    if !onnxruntime_ready() {
        return;
    }
    let tmp = tmp();
    let photo = write_photo(tmp.path(), 48, 40);
    let run_dir = tmp.path().join("run");
    let p = photo.to_str().unwrap();
    // Tables of 2^10 entries: the finer levels are hashed.
    let fit = [
        "image",
        "fit",
        p,
        "--steps",
        "40",
        "--log2-table-size",
        "10",
    ];
    assert_success(&train(&fit, &run_dir));
    let r = run_dir.to_str().unwrap();
    let (full, half) = (tmp.path().join("m.onnx"), tmp.path().join("h.onnx"));
    assert_success(&run(["export", r, "-o", full.to_str().unwrap()]));
    assert_success(&run(["export", r, "--half", "-o", half.to_str().unwrap()]));
    let (w, h) = (96, 80);
    let png = tmp.path().join("render.png");
    let args = [
        "image",
        "render",
        r,
        "--size",
        "96",
        "-o",
        png.to_str().unwrap(),
    ];
    assert_success(&run(args));

    let model = FittedModel::load(&run_dir, &CpuBackend::new()).unwrap();
    let ours = model
        .predict(&io::image::coords::coordinate_grid(w, h))
        .unwrap()
        .values;
    let ort = ort_render(&full, w, h, &tmp.path().join("full.f32"));
    assert_eq!(ort.len(), ours.len());
    let worst = ort
        .iter()
        .zip(&ours)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    eprintln!("onnxruntime against the library: max abs difference {worst:.2e}");
    assert!(worst <= 1e-5, "max difference {worst}");
    let drawn = image::open(&png).unwrap().to_rgb8().into_raw();
    let bytes: Vec<u8> = ort
        .iter()
        .map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
        .collect();
    let off = drawn.iter().zip(&bytes).filter(|(a, b)| a != b).count();
    let most = drawn
        .iter()
        .zip(&bytes)
        .map(|(a, b)| a.abs_diff(*b))
        .max()
        .unwrap();
    eprintln!(
        "8-bit pixels differing from the render: {off} of {} (at most {most})",
        bytes.len()
    );
    assert!(
        most <= 1 && off * 100 <= bytes.len(),
        "{off} differ, by up to {most}"
    );

    let ort16 = ort_render(&half, w, h, &tmp.path().join("half.f32"));
    let mse = ort16
        .iter()
        .zip(&ort)
        .map(|(a, b)| ((a - b) as f64).powi(2))
        .sum::<f64>()
        / ort.len() as f64;
    let psnr = -10.0 * mse.log10();
    eprintln!("float16 graph against float32: PSNR {psnr:.1} dB");
    assert!(psnr > 60.0 && psnr.is_finite(), "PSNR {psnr}");
    let ratio = std::fs::metadata(&half).unwrap().len() as f64
        / std::fs::metadata(&full).unwrap().len() as f64;
    assert!(ratio < 0.55, "float16 file is {ratio} of float32");
}
