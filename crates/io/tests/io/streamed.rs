//! Outputs that are special files or the command's own input, the streamed PNG writer and
//! renderer, and decoding refused from the header alone when the memory budget is too small.

use io::image::{
    ColorMode, MemoryBudget, ModelPixels, RenderSettings, encode_png, load_picture,
    load_picture_within, read_image_header, render_picture, render_png, write_png_rows,
};
use io::output::{OutputFile, refuse_own_input};
use io::{Error, Picture, write_file};
use nn::{Activation, HashGridMlp, HashGridMlpConfig, Mlp, Model};
use std::io::Write;
use std::path::Path;
use tensor_cpu::CpuBackend;

/// A dropped `OutputFile` leaves the old content and no temporary file; a committed one
/// replaces it whole.
#[test]
fn an_uncommitted_output_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.csv");
    std::fs::write(&path, "old").unwrap();
    let mut out = OutputFile::create(&path).unwrap();
    out.write_all(b"half of the new").unwrap();
    drop(out);
    assert_eq!(std::fs::read(&path).unwrap(), b"old");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    let mut out = OutputFile::create(&path).unwrap();
    out.write_all(b"new").unwrap();
    out.commit().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"new");
}

/// A named pipe is written in place (the reader gets the bytes) and stays a pipe.
#[cfg(unix)]
#[test]
fn a_fifo_is_written_in_place_and_stays_a_fifo() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).unwrap())
    };
    write_file(&fifo, b"through the pipe").unwrap();
    assert_eq!(reader.join().unwrap(), b"through the pipe");
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the pipe was replaced: {kind:?}");
}

/// An output is refused when it is an input by path, through a link, or as a hard link
/// (same inode); another file, or a path that does not exist, is accepted.
#[cfg(unix)]
#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("model.safetensors");
    std::fs::write(&input, "weights").unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let hard = dir.path().join("hard");
    std::fs::hard_link(&input, &hard).unwrap();
    let other = dir.path().join("other");
    std::fs::write(&other, "x").unwrap();
    let dotted = dir.path().join(".").join("model.safetensors");
    for output in [&input, &link, &hard, &dotted] {
        let e = refuse_own_input(output, &[&other, &input]).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
        let text = e.to_string();
        assert!(
            text.starts_with("refusing to write") && text.contains("input"),
            "{text}"
        );
    }
    refuse_own_input(&other, &[&input]).unwrap();
    refuse_own_input(&dir.path().join("new.onnx"), &[&input]).unwrap();
    assert_eq!(std::fs::read(&input).unwrap(), b"weights");
}

/// Rows streamed in bands of any height give the same picture as the whole PNG encoded in
/// memory; a band that is not whole rows is an error and the old file stays.
#[test]
fn png_rows_streamed_match_the_whole_picture() {
    let dir = tempfile::tempdir().unwrap();
    let (w, h) = (37, 23);
    let pixels: Vec<u8> = (0..w * h * 3).map(|i| (i * 7 % 251) as u8).collect();
    let whole = dir.path().join("whole.png");
    write_file(&whole, &encode_png(&pixels, w, h, 3).unwrap()).unwrap();
    let streamed = dir.path().join("streamed.png");
    write_png_rows(&streamed, w, h, 3, |row, band| {
        let rows = 5.min(h - row);
        band.extend_from_slice(&pixels[row * w * 3..(row + rows) * w * 3]);
        Ok(())
    })
    .unwrap();
    let a = load_picture(&whole, ColorMode::Rgb).unwrap();
    let b = load_picture(&streamed, ColorMode::Rgb).unwrap();
    assert_eq!(a.to_bytes(), pixels);
    assert_eq!(b.to_bytes(), pixels);
    let e = write_png_rows(&streamed, w, h, 3, |_, band| {
        band.extend([1, 2]);
        Ok(())
    })
    .unwrap_err();
    assert!(e.to_string().contains("whole rows"), "{e}");
    assert_eq!(load_picture(&streamed, ColorMode::Rgb).unwrap(), b);
}

fn hash_grid(cpu: &CpuBackend) -> HashGridMlp<CpuBackend> {
    let config = HashGridMlpConfig {
        levels: 4,
        log2_table_size: 12,
        base_resolution: 4,
        hidden: vec![16],
        ..HashGridMlpConfig::new(3, 64)
    };
    HashGridMlp::from_config(cpu, &config, 5).unwrap()
}

/// The PNG drawn band by band holds the bytes of the picture drawn whole, with the offset
/// added and values clamped, in colour and in black and white.
#[test]
fn the_streamed_render_matches_the_whole_render() {
    let cpu = CpuBackend::new();
    let model = hash_grid(&cpu);
    let network = ModelPixels(&model);
    let dir = tempfile::tempdir().unwrap();
    // 300 columns: bands of 218 rows, so 700 rows take four bands, the last one partial.
    let mut settings = RenderSettings::new(300, 700, 3);
    settings.offset = vec![0.5, 0.25, 0.75];
    for threshold in [None, Some(0.5)] {
        settings.threshold = threshold;
        let whole = render_picture(&cpu, &network, &settings).unwrap();
        let path = dir.path().join("render.png");
        render_png(&cpu, &network, &settings, &path).unwrap();
        let mode = if threshold.is_some() {
            ColorMode::Grayscale
        } else {
            ColorMode::Rgb
        };
        let back = load_picture(&path, mode).unwrap();
        assert_eq!((back.width, back.height), (300, 700));
        assert_eq!(back.to_bytes(), whole.to_bytes());
    }
}

/// Rendering uses the training coordinates bit for bit: the renderer's first row equals the
/// network's predictions at `nn::train::pixel_coord`.
#[test]
fn rendering_uses_the_training_coordinates() {
    let cpu = CpuBackend::new();
    let model = Mlp::builder()
        .input(2)
        .hidden(&[8], Activation::Sine { w0: 30.0 })
        .output(1, Activation::Identity)
        .build(&cpu, 3)
        .unwrap();
    let (w, h) = (200, 3);
    let settings = RenderSettings::new(w, h, 1);
    let rows = io::image::render_rows(&cpu, &ModelPixels(&model), &settings, 1, 1).unwrap();
    let coords: Vec<f32> = (0..w)
        .flat_map(|i| [nn::train::pixel_coord(i, w), nn::train::pixel_coord(1, h)])
        .collect();
    let x = tensor_core::Tensor::from_slice(&cpu, &coords, [w, 2]).unwrap();
    let expected: Vec<f32> = model
        .predict(&x)
        .unwrap()
        .to_vec()
        .unwrap()
        .iter()
        .map(|v| v.clamp(0.0, 1.0))
        .collect();
    assert_eq!(rows, expected);
    for n in [2, 3, 7, 200, 4097] {
        for i in [0, 1, n / 2, n - 1] {
            assert_eq!(
                io::image::coords::pixel_to_coord(i, n).to_bits(),
                nn::train::pixel_coord(i, n).to_bits()
            );
        }
    }
}

/// A PNG whose header announces `width x height` RGB pixels but holds no pixel data.
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
    ihdr.extend([8, 2, 0, 0, 0]); // 8 bits, RGB, deflate, adaptive filters, no interlace
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"IDAT", &[0x78, 0x9c]);
    chunk(&mut png, b"IEND", &[]);
    std::fs::write(path, png).unwrap();
}

/// A 30000x20000 header with no pixels behind it: the budget refuses it from the header
/// alone (a decode would fail on the missing data instead), saying what would fit.
#[test]
fn decoding_is_refused_from_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.png");
    header_only_png(&path, 30_000, 20_000);
    let header = read_image_header(&path).unwrap();
    assert_eq!(
        (header.width, header.height, header.channels),
        (30_000, 20_000, 3)
    );
    // 3 bytes decoded and 12 as f32 RGB per pixel.
    assert_eq!(header.decode_bytes(ColorMode::Rgb), 600_000_000 * 15);
    let budget = MemoryBudget::new(2 << 30, "test budget");
    let e = load_picture_within(&path, ColorMode::Rgb, &budget).unwrap_err();
    assert!(matches!(e, Error::TooLarge(_)), "{e:?}");
    let text = e.to_string();
    for needle in [
        "30000x20000",
        "8.4 GB",
        "2.0 GB (test budget)",
        "143 megapixels",
    ] {
        assert!(text.contains(needle), "{needle:?} not in {text}");
    }
    // One pixel within a one-pixel budget's worth of bytes decodes.
    let small = dir.path().join("one.png");
    write_file(&small, &encode_png(&[10, 20, 30], 1, 1, 3).unwrap()).unwrap();
    let one = load_picture_within(&small, ColorMode::Rgb, &MemoryBudget::new(15, "t")).unwrap();
    assert_eq!(one, Picture::from_bytes(1, 1, 3, &[10, 20, 30]).unwrap());
    let e = load_picture_within(&small, ColorMode::Rgb, &MemoryBudget::new(14, "t")).unwrap_err();
    assert!(matches!(e, Error::TooLarge(_)), "{e:?}");
}
