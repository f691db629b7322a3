//! The checks behind each fuzz target, as plain functions of the input bytes: the targets in
//! `fuzz_targets/` call them under libFuzzer, and `cargo test` in this folder replays the
//! committed seeds (`seeds/<target>/`) and regressions (`regressions/<target>/`) through them
//! on a stable compiler.
//!
//! Each check feeds the bytes to one parser and, when the parser accepts them, asserts the
//! invariants its output promises. A panic is a finding.

use io::ColorMode;
use io::checkpoint::Checkpoint;
use io::dataset::{CsvOptions, parse_json, read_csv};
use io::image::{PixelValues, decode_picture, decode_pixel_csv};

/// CSV datasets: default options (last column is the target) and a named target.
pub fn csv_dataset(data: &[u8]) {
    for options in [
        CsvOptions::new(),
        CsvOptions::new().target("y").drop_missing(true),
    ] {
        if let Ok(d) = read_csv(data, "fuzz.csv", &options) {
            assert!(d.rows > 0);
            assert_eq!(d.x.len(), d.rows * d.n_features);
            assert_eq!(d.y.len(), d.rows * d.n_targets);
            assert_eq!(d.feature_names.len(), d.n_features);
            assert!(d.x.iter().chain(&d.y).all(|v| v.is_finite()));
        }
    }
}

/// The JSON dataset format.
pub fn json_dataset(data: &[u8]) {
    if let Ok(split) = parse_json(data, "fuzz.json") {
        for part in std::iter::once(&split.train).chain(split.test.as_ref()) {
            assert!(part.rows > 0);
            assert_eq!(part.x.len(), part.rows * part.n_features);
            assert_eq!(part.y.len(), part.rows * part.n_targets);
            assert!(part.x.iter().chain(&part.y).all(|v| v.is_finite()));
        }
    }
}

/// Safetensors checkpoints: whatever loads serialises again and loads back the same.
pub fn checkpoint(data: &[u8]) {
    let Ok(ck) = Checkpoint::from_bytes(data, "fuzz.safetensors") else {
        return;
    };
    let _ = ck.data_fingerprint();
    let _ = ck.first_non_finite("model.");
    for t in ck.tensors.values() {
        assert_eq!(t.numel(), Some(t.data.len()));
    }
    let bytes = ck.to_bytes().expect("a loaded checkpoint serialises");
    let back = Checkpoint::from_bytes(&bytes, "again").expect("and loads back");
    assert_eq!(back.metadata, ck.metadata);
    assert_eq!(back.tensors.len(), ck.tensors.len());
    for ((na, a), (nb, b)) in ck.tensors.iter().zip(&back.tensors) {
        assert_eq!(na, nb);
        assert_eq!(a.shape, b.shape);
        let same = a
            .data
            .iter()
            .zip(&b.data)
            .all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(same, "tensor {na} changed in a round trip");
    }
}

/// Image files (PNG, JPEG, WebP, BMP), as gray and as RGB.
pub fn image_decode(data: &[u8]) {
    for mode in [ColorMode::Grayscale, ColorMode::Rgb] {
        if let Ok(p) = decode_picture(data, mode, "fuzz.img") {
            p.validate().expect("a decoded picture is valid");
            assert_eq!(p.channels, if mode == ColorMode::Rgb { 3 } else { 1 });
        }
    }
}

/// Pixel CSV (`x,y,value` or `x,y,r,g,b`) back to a picture.
pub fn pixel_csv(data: &[u8]) {
    if let Ok(p) = decode_pixel_csv(data, "fuzz.csv", PixelValues::Bytes) {
        p.validate().expect("a decoded picture is valid");
    }
}

/// Function expressions (`approx --fn`) and ranges (`--range`).
pub fn expression(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match io::expr::Function::parse(text) {
        Ok(f) => {
            for x in [-3.0, -0.5, 0.0, 1e-300, 2.5, f64::NAN] {
                let _ = f.eval(x);
            }
        }
        Err(e) => {
            // Positions point into the text (or just after it).
            assert!(
                e.position >= 1 && e.position <= text.chars().count() + 1,
                "{e}"
            );
            assert!(!e.to_string().contains('\n') || text.contains('\n'));
        }
    }
    let _ = io::expr::parse_range(text);
}

#[cfg(test)]
mod tests {
    //! Replays every committed input (seed corpus and regressions) through its check.

    use std::path::Path;

    fn replay(target: &str, check: fn(&[u8])) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut count = 0;
        for folder in ["seeds", "regressions"] {
            let Ok(entries) = std::fs::read_dir(root.join(folder).join(target)) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                check(&std::fs::read(&path).unwrap());
                count += 1;
            }
        }
        assert!(count > 0, "no committed inputs for {target}");
    }

    #[test]
    fn committed_inputs_pass() {
        replay("csv_dataset", super::csv_dataset);
        replay("json_dataset", super::json_dataset);
        replay("checkpoint", super::checkpoint);
        replay("image_decode", super::image_decode);
        replay("pixel_csv", super::pixel_csv);
        replay("expression", super::expression);
    }
}
