//! The memory budget at decode, render and encode: refusals from the image header or the
//! render size alone, saying what would fit; a PNG render streamed in bands stays small at
//! any size.

use crate::common::*;
use std::path::Path;
use std::process::Output;

/// A PNG whose header announces `width x height` RGB pixels but holds no pixel data: any
/// attempt to decode it fails, so a refusal naming memory proves the header alone was read.
fn header_only_png(path: &Path, width: u32, height: u32) {
    fn crc(bytes: &[u8]) -> u32 {
        let mut c = 0xffff_ffffu32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }
    let chunk = |out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]| {
        out.extend((data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend(crc(&body).to_be_bytes());
    };
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 2, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"IDAT", &[0x78, 0x9c]);
    chunk(&mut png, b"IEND", &[]);
    std::fs::write(path, png).unwrap();
}

fn with_limit(limit: &str, args: &[&str]) -> Output {
    command(args)
        .env("IRON_LEARN_MEMORY_LIMIT", limit)
        .output()
        .expect("cannot start iron-learn")
}

/// `image fit`, `image encode` and `image render --reference` on a 30000x20000 header are
/// refused in one line from the header, each saying what would fit; the fit at full size,
/// trained on a compact copy of 3 bytes a pixel, is planned within 2.5 GB.
#[test]
fn decoding_is_refused_from_the_header_alone() {
    let dir = tmp();
    let huge = dir.path().join("huge.png");
    header_only_png(&huge, 30_000, 20_000);
    let h = huge.to_str().unwrap();
    let out = dir.path().join("run");
    // The compact copy alone (1.7 GB) does not fit in 1 GB: a smaller --size would.
    let o = with_limit(
        "1G",
        &[
            "image",
            "fit",
            h,
            "--device",
            "cpu",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_one_line_error(&o, &["image fit", "memory", "--size"]);
    assert!(!out.exists(), "a refused fit left {}", out.display());
    // In 2.5 GB the fit at full size is planned, and the decoding starts (and fails on the
    // missing pixels) before anything is written.
    let o = with_limit(
        "2.5G",
        &[
            "image",
            "fit",
            h,
            "--device",
            "cpu",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_one_line_error(&o, &["decode", "huge.png"]);
    assert!(!out.exists(), "a failed fit left {}", out.display());
    // In 2 GB the image alone does not fit, but `--size 64` shrinks it as its rows are decoded,
    // in the memory of the 64-pixel picture: planned, and the decoding starts (and fails on
    // the missing pixels) before anything is written.
    let o = with_limit(
        "2G",
        &[
            "image",
            "fit",
            h,
            "--size",
            "64",
            "--device",
            "cpu",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_one_line_error(&o, &["decode", "huge.png"]);
    assert!(!out.exists(), "a failed fit left {}", out.display());
    // image encode holds the compact copy (1.8 GB): refused in 1 GB, saying what fits, and
    // in 2 GB the decoding starts (and fails on the missing pixels) before anything is written.
    let csv = dir.path().join("px.csv");
    let o = with_limit("1G", &["image", "encode", h, "-o", csv.to_str().unwrap()]);
    assert_one_line_error(&o, &["30000x20000", "megapixels"]);
    assert!(!csv.exists());
    let o = with_limit("2G", &["image", "encode", h, "-o", csv.to_str().unwrap()]);
    assert_one_line_error(&o, &["decode", "huge.png"]);
    assert!(!csv.exists());
}

/// Images over 100 megapixels get hash-grid tables of 2^20 entries where the memory budget
/// holds them and keep 2^19 where it does not: under 2400 MB the 2^20 plan (2.4 GB) is
/// refused when asked for, while the default falls back to 2^19 and goes on to decode.
#[test]
fn large_images_keep_smaller_tables_where_larger_ones_do_not_fit() {
    let dir = tmp();
    let huge = dir.path().join("huge.png");
    header_only_png(&huge, 30_000, 20_000);
    let out = dir.path().join("run");
    let fit = |extra: &[&str]| {
        let mut args = vec!["image", "fit", huge.to_str().unwrap(), "--arch", "hashgrid"];
        args.extend_from_slice(extra);
        args.extend(["--device", "cpu", "-q", "-o", out.to_str().unwrap()]);
        with_limit("2400M", &args)
    };
    assert_one_line_error(&fit(&["--log2-table-size", "20"]), &["image fit", "2.4 GB"]);
    assert_one_line_error(&fit(&[]), &["decode", "huge.png"]);
    assert!(!out.exists(), "a failed fit left {}", out.display());
}

/// A render drawn whole (another format than PNG, or scored against a reference) is refused
/// from its size alone, with the --size that fits; the same size as a PNG is drawn in bands.
#[test]
fn whole_renders_are_refused_from_their_size() {
    let dir = tmp();
    let run = dir.path().join("fit");
    assert_success(&train(
        &[
            "image", "fit", "--size", "16", "--steps", "3", "--hidden", "8x2",
        ],
        &run,
    ));
    let r = run.to_str().unwrap();
    let jpg = dir.path().join("big.jpg");
    let o = with_limit(
        "64M",
        &[
            "image",
            "render",
            r,
            "--size",
            "8192",
            "--device",
            "cpu",
            "-o",
            jpg.to_str().unwrap(),
        ],
    );
    assert_one_line_error(&o, &["8192x8192", "--size", "or less fits", ".png"]);
    assert!(!jpg.exists());
    let reference = data("drawing.png");
    let png = dir.path().join("big.png");
    let p = png.to_str().unwrap();
    let o = with_limit(
        "64M",
        &[
            "image",
            "render",
            r,
            "--size",
            "8192",
            "--device",
            "cpu",
            "-o",
            p,
            "--reference",
            reference.to_str().unwrap(),
        ],
    );
    assert_one_line_error(&o, &["--reference", "or less fits"]);
    assert!(!png.exists());
    let o = with_limit(
        "64M",
        &[
            "image", "render", r, "--size", "2048", "--device", "cpu", "-o", p,
        ],
    );
    assert_success(&o);
    assert_eq!(png_size(&png), (2048, 2048));
}

/// The streamed render's peak memory: an 8192x8192 gray PNG (67 million pixels; drawn whole
/// it would hold 256 MB of f32 values and 64 MB of bytes) peaks under 160 MB, measured with
/// `/usr/bin/time -v` (the test needs it; it is part of GNU time).
#[cfg(target_os = "linux")]
#[test]
fn a_streamed_render_stays_small() {
    let time = Path::new("/usr/bin/time");
    assert!(
        time.exists(),
        "the peak-memory test needs /usr/bin/time (GNU time)"
    );
    let dir = tmp();
    let run = dir.path().join("fit");
    assert_success(&train(
        &[
            "image", "fit", "--size", "16", "--steps", "3", "--hidden", "8x2",
        ],
        &run,
    ));
    let png = dir.path().join("big.png");
    let o = std::process::Command::new(time)
        .arg("-v")
        .arg(BIN)
        .args(["image", "render"])
        .arg(&run)
        .args(["--size", "8192", "--device", "cpu", "-o"])
        .arg(&png)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", describe(&o));
    let report = String::from_utf8_lossy(&o.stderr);
    let kib: u64 = report
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak memory in {report}"));
    assert!(kib < 160 * 1024, "peak {kib} KiB");
    assert_eq!(png_size(&png), (8192, 8192));
}

/// `image decode` reads a pixel CSV's coordinates first and refuses one whose decoding cannot
/// fit in the budget, before holding its rows or its picture, and writes nothing; the same CSV
/// decodes under a budget that holds it, and a malformed CSV still gets its own message.
#[test]
fn decode_refuses_a_csv_beyond_the_budget_before_reading_it_whole() {
    use std::fmt::Write as _;
    let dir = tmp();
    let csv = dir.path().join("pixels.csv");
    let mut text = String::from("x,y,value\n");
    for y in 0..500 {
        for x in 0..600 {
            writeln!(text, "{x},{y},{}", (x * y) % 256).unwrap();
        }
    }
    std::fs::write(&csv, text).unwrap();
    let png = dir.path().join("out.png");
    let decode = |limit: &str, input: &Path| {
        command(["image", "decode"])
            .arg(input)
            .arg("-o")
            .arg(&png)
            .env("IRON_LEARN_MEMORY_LIMIT", limit)
            .output()
            .unwrap()
    };
    let o = decode("16M", &csv);
    assert_one_line_error(
        &o,
        &[
            "image decode",
            "600x500",
            "300000 rows",
            "16.0 MB",
            "megapixels",
        ],
    );
    assert!(!png.exists());
    let o = decode("256M", &csv);
    assert_success(&o);
    assert_eq!(png_size(&png), (600, 500));
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "x,y,value\n0,0,7\n1,zero,3\n").unwrap();
    let o = decode("1K", &bad);
    assert_one_line_error(&o, &["zero", "pixel index"]);
}

/// The peak memory of a fit matches its estimate: a 2400x1600 colour photo-like image fits
/// (compact copy, training, the reconstruction drawn and scored in bands) with a peak under
/// the estimate the budget checks, and above a third of it. The estimate is read from the
/// refusal under a 1 MB budget; the peak is the `Maximum resident set size` of GNU time.
/// 20 steps of 65,536 pixels are enough for the whole reconstruction to be drawn (a fit of
/// more than three times the pixels it trained on draws it smaller).
#[cfg(target_os = "linux")]
#[test]
fn a_fit_peaks_within_its_estimate() {
    let time = Path::new("/usr/bin/time");
    assert!(time.exists(), "the peak-memory test needs /usr/bin/time");
    let dir = tmp();
    let (w, h) = (2400usize, 1600usize);
    let pixels: Vec<u8> = (0..w * h * 3)
        .map(|i| ((i / 3 % w) * 3 + (i / 3 / w) * 5 + (i % 3) * 60) as u8)
        .collect();
    let image = dir.path().join("photo.png");
    let bytes = io::image::encode_png(&pixels, w, h, 3).unwrap();
    std::fs::write(&image, bytes).unwrap();
    let args = |out: &Path| -> Vec<String> {
        let image = image.to_str().unwrap().to_string();
        let out = out.to_str().unwrap().to_string();
        [
            "image", "fit", &image, "--steps", "20", "--device", "cpu", "-q", "-o", &out,
        ]
        .map(String::from)
        .to_vec()
    };
    let refused = command(args(&dir.path().join("refused")))
        .env("IRON_LEARN_MEMORY_LIMIT", "1M")
        .output()
        .unwrap();
    let message = assert_one_line_error(&refused, &["image fit", "would need about"]);
    let estimate = message
        .split("would need about ")
        .nth(1)
        .and_then(|rest| {
            let mut words = rest.split_whitespace();
            let value: f64 = words.next()?.parse().ok()?;
            let unit = match words.next()? {
                "MB" => 1024.0 * 1024.0,
                "GB" => 1024.0 * 1024.0 * 1024.0,
                _ => return None,
            };
            Some(value * unit)
        })
        .unwrap_or_else(|| panic!("no estimate in {message}"));
    let o = std::process::Command::new(time)
        .arg("-v")
        .arg(BIN)
        .args(args(&dir.path().join("run")))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", describe(&o));
    let report = String::from_utf8_lossy(&o.stderr);
    let peak = report
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|v| v.trim().parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no peak memory in {report}"))
        * 1024.0;
    assert!(
        peak <= estimate && peak >= estimate / 3.0,
        "peak {peak} bytes, estimate {estimate} bytes"
    );
    assert_eq!(
        png_size(&dir.path().join("run/reconstruction.png")),
        (2400, 1600)
    );
}
