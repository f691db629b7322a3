//! The compact copy a fit trains on: PNGs decoded row by row into it with the values of a
//! whole decode, its loading refused from the header alone, and scores computed band by band
//! equal to the whole-picture scores.

use io::image::{
    BandScorer, ColorMode, CompactPicture, MemoryBudget, ModelPixels, RenderSettings, Shrinker,
    encode_png, flat_area_noise, ink_iou, load_compact_within, load_picture, pixel_accuracy, psnr,
    read_image_header, render_picture, render_scored, ssim,
};
use io::{Error, Picture, write_file};
use nn::{HashGridMlp, HashGridMlpConfig, Model, PixelValues};
use std::path::Path;
use tensor_cpu::CpuBackend;

/// Bytes of a `w x h` picture of `c` channels with texture, flat patches and pure black.
pub fn pattern(w: usize, h: usize, c: usize) -> Vec<u8> {
    (0..w * h * c)
        .map(|i| {
            let (p, ch) = (i / c, i % c);
            let (x, y) = (p % w, p / w);
            if x < w / 3 {
                200 // a flat area
            } else if y % 5 == 0 {
                0 // ink lines
            } else {
                ((x * 7 + y * 13 + ch * 50) % 256) as u8
            }
        })
        .collect()
}

pub fn write_png(path: &Path, bytes: &[u8], w: usize, h: usize, c: usize) {
    write_file(path, &encode_png(bytes, w, h, c).unwrap()).unwrap();
}

/// 8-bit RGB and gray PNGs are decoded row by row into bytes holding exactly the values of a
/// whole decode, in every mode (gray from RGB as `f32` luma); an RGBA PNG, decoded whole,
/// gives the same values as [`load_picture`] too.
#[test]
fn png_rows_hold_the_values_of_a_whole_decode() {
    let dir = tempfile::tempdir().unwrap();
    let (w, h) = (37, 23);
    for c in [1, 3] {
        let path = dir.path().join(format!("p{c}.png"));
        write_png(&path, &pattern(w, h, c), w, h, c);
        assert!(read_image_header(&path).unwrap().rows_streamed);
        for mode in [
            ColorMode::Rgb,
            ColorMode::Grayscale,
            ColorMode::BlackAndWhite(0.5),
        ] {
            let compact = load_compact_within(&path, mode, None).unwrap();
            let whole = load_picture(&path, mode).unwrap();
            assert_eq!(
                compact.to_picture().unwrap(),
                whole,
                "{c} channels, {mode:?}"
            );
            let bytes = matches!(compact.values(), PixelValues::U8(_));
            let luma = c == 3 && mode == ColorMode::Grayscale;
            assert_eq!(bytes, !luma, "{c} channels, {mode:?}");
        }
    }
    let rgba: Vec<u8> = pattern(w, h, 3)
        .chunks(3)
        .flat_map(|p| [p[0], p[1], p[2], 128])
        .collect();
    let img = image::RgbaImage::from_raw(w as u32, h as u32, rgba).unwrap();
    let path = dir.path().join("rgba.png");
    img.save(&path).unwrap();
    assert!(!read_image_header(&path).unwrap().rows_streamed);
    let compact = load_compact_within(&path, ColorMode::Rgb, None).unwrap();
    let whole = load_picture(&path, ColorMode::Rgb).unwrap();
    assert_eq!(compact.to_picture().unwrap(), whole);
}

/// A truncated PNG is an error naming the file, not a short picture.
#[test]
fn a_truncated_png_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.png");
    let bytes = encode_png(&pattern(200, 100, 3), 200, 100, 3).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let e = load_compact_within(&path, ColorMode::Rgb, None).unwrap_err();
    assert!(e.to_string().contains("cut.png"), "{e}");
}

/// A PNG header of 30000x20000 RGB pixels with no pixel data behind it.
fn huge_header(path: &Path) {
    let mut bytes = encode_png(&[0; 3], 1, 1, 3).unwrap();
    // The IHDR chunk's width and height, and its checksum over type and data.
    bytes[16..20].copy_from_slice(&30_000u32.to_be_bytes());
    bytes[20..24].copy_from_slice(&20_000u32.to_be_bytes());
    let crc = crc32(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    std::fs::write(path, bytes).unwrap();
}

fn crc32(bytes: &[u8]) -> u32 {
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

/// The compact copy of a 30000x20000 RGB PNG takes 3 bytes a pixel (1.8 GB) and is made row
/// by row: a budget below that refuses it from the header, saying what fits; a budget above
/// it lets the decoding start (which then fails on the missing pixels).
#[test]
fn a_compact_load_is_refused_from_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.png");
    huge_header(&path);
    let header = read_image_header(&path).unwrap();
    assert!(header.rows_streamed);
    assert_eq!(header.compact_bytes(ColorMode::Rgb), 1_800_000_000);
    assert_eq!(header.load_bytes(ColorMode::Rgb), 1_800_000_000);
    assert_eq!(header.load_bytes(ColorMode::Grayscale), 2_400_000_000);
    assert_eq!(
        header.load_bytes(ColorMode::BlackAndWhite(0.5)),
        600_000_000
    );
    let small = MemoryBudget::new(1 << 30, "test budget");
    let e = load_compact_within(&path, ColorMode::Rgb, Some(&small)).unwrap_err();
    assert!(matches!(e, Error::TooLarge(_)), "{e:?}");
    for needle in [
        "30000x20000",
        "1.7 GB",
        "1.0 GB (test budget)",
        "357 megapixels",
    ] {
        assert!(e.to_string().contains(needle), "{needle:?} not in {e}");
    }
    let enough = MemoryBudget::new(2 << 30, "test budget");
    let e = load_compact_within(&path, ColorMode::Rgb, Some(&enough)).unwrap_err();
    assert!(matches!(e, Error::Image { .. }), "{e:?}");
}

/// A picture and a prediction that differs from it by exactly `d` in every value (up and
/// down in turn): PSNR `-20 log10(d)` in closed form.
fn offset_pair(w: usize, h: usize, c: usize, d: f32) -> (CompactPicture, Picture) {
    let bytes: Vec<u8> = pattern(w, h, c).iter().map(|&b| b.clamp(10, 245)).collect();
    let reference = CompactPicture::new(w, h, c, PixelValues::U8(bytes.clone())).unwrap();
    let values = bytes
        .iter()
        .enumerate()
        .map(|(i, &b)| f32::from(b) / 255.0 + if i % 2 == 0 { d } else { -d })
        .collect();
    (reference, Picture::new(w, h, c, values).unwrap())
}

/// Scores added band by band (one row, a few rows, all rows at once) are those of the whole
/// pictures: PSNR the closed form, and SSIM, ink scores and flat-area noise the whole-picture
/// functions' values.
#[test]
fn banded_scores_equal_the_whole_picture_scores() {
    let d = 3.0 / 255.0;
    for c in [1, 3] {
        let (w, h) = (41, 29);
        let (reference, prediction) = offset_pair(w, h, c, d);
        let whole_reference = reference.to_picture().unwrap();
        let expected = -20.0 * f64::from(d).log10();
        for band_rows in [1, 4, 11, h] {
            let mut scorer = BandScorer::new(&reference);
            for rows in prediction.data.chunks(band_rows * w * c) {
                scorer.add_rows(rows).unwrap();
            }
            let s = scorer.finish().unwrap();
            assert!((s.psnr - expected).abs() < 1e-4, "{} vs {expected}", s.psnr);
            assert_eq!(s.psnr, psnr(&prediction, &whole_reference).unwrap());
            assert_eq!(s.ssim, ssim(&prediction, &whole_reference).unwrap());
            assert_eq!(s.ink_iou, ink_iou(&prediction, &whole_reference).unwrap());
            let accuracy = pixel_accuracy(&prediction, &whole_reference).unwrap();
            assert_eq!(s.pixel_accuracy, accuracy);
            let noise = flat_area_noise(&prediction, &whole_reference).unwrap();
            assert_eq!(s.flat_area_noise, noise);
            assert!((noise.unwrap() - 3.0).abs() < 1e-3, "{noise:?}");
        }
    }
    let (reference, prediction) = offset_pair(8, 6, 1, d);
    let mut scorer = BandScorer::new(&reference);
    assert!(scorer.add_rows(&prediction.data[..5]).is_err());
    scorer.add_rows(&prediction.data[..8]).unwrap();
    assert!(scorer.finish().is_err(), "a prediction of one row of six");
}

/// Shrinking by whole blocks gives each block's mean (partial blocks at the edges are the
/// mean of what they hold); a picture no larger than the limit is unchanged.
#[test]
fn shrinking_takes_block_means() {
    let (w, h) = (5, 3);
    let values: Vec<f32> = (0..w * h).map(|i| i as f32 / 20.0).collect();
    let mut same = Shrinker::new(w, h, 1, 5);
    same.add_rows(&values).unwrap();
    assert_eq!(same.finish().unwrap().data, values);
    let mut half = Shrinker::new(w, h, 1, 3);
    for row in values.chunks(w) {
        half.add_rows(row).unwrap();
    }
    let small = half.finish().unwrap();
    assert_eq!((small.width, small.height), (3, 2));
    let mean = |ids: &[usize]| ids.iter().map(|&i| values[i]).sum::<f32>() / ids.len() as f32;
    let expected = [
        mean(&[0, 1, 5, 6]),
        mean(&[2, 3, 7, 8]),
        mean(&[4, 9]),
        mean(&[10, 11]),
        mean(&[12, 13]),
        mean(&[14]),
    ];
    for (got, want) in small.data.iter().zip(expected) {
        assert!((got - want).abs() < 1e-6, "{got} vs {want}");
    }
}

/// The fit's reconstruction drawn into its PNG and scored band by band scores as the
/// picture drawn whole does, and the PNG holds that picture's bytes.
#[test]
fn a_scored_render_matches_the_whole_render() {
    let cpu = CpuBackend::new();
    let config = HashGridMlpConfig {
        levels: 4,
        log2_table_size: 12,
        base_resolution: 4,
        hidden: vec![16],
        ..HashGridMlpConfig::new(3, 64)
    };
    let model = HashGridMlp::from_config(&cpu, &config, 5).unwrap();
    let network = ModelPixels(&model);
    let (w, h) = (300, 700);
    let mut settings = RenderSettings::new(w, h, 3);
    settings.offset = vec![0.5, 0.4, 0.6];
    let reference = CompactPicture::new(w, h, 3, PixelValues::U8(pattern(w, h, 3))).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reconstruction.png");
    let (scores, shown) = render_scored(&cpu, &network, &settings, &reference, &path, 350).unwrap();
    let whole = render_picture(&cpu, &network, &settings).unwrap();
    let r = reference.to_picture().unwrap();
    assert_eq!(scores.psnr, psnr(&whole, &r).unwrap());
    assert_eq!(scores.ssim, ssim(&whole, &r).unwrap());
    assert_eq!((shown.width, shown.height), (150, 350));
    let back = load_picture(&path, ColorMode::Rgb).unwrap();
    assert_eq!(back.to_bytes(), whole.to_bytes());
    let wrong = CompactPicture::new(w, h - 1, 3, PixelValues::U8(pattern(w, h - 1, 3))).unwrap();
    assert!(render_scored(&cpu, &network, &settings, &wrong, &path, 350).is_err());
}

/// Writes an 8-bit TIFF of `bytes` in strips of `rows_per_strip` rows.
pub fn write_tiff(path: &Path, bytes: &[u8], w: usize, h: usize, c: usize, rows_per_strip: u32) {
    use tiff::encoder::{TiffEncoder, colortype};
    let file = std::fs::File::create(path).unwrap();
    let mut encoder = TiffEncoder::new(std::io::BufWriter::new(file)).unwrap();
    let (w, h) = (w as u32, h as u32);
    if c == 3 {
        let mut image = encoder.new_image::<colortype::RGB8>(w, h).unwrap();
        image.rows_per_strip(rows_per_strip).unwrap();
        image.write_data(bytes).unwrap();
    } else {
        let mut image = encoder.new_image::<colortype::Gray8>(w, h).unwrap();
        image.rows_per_strip(rows_per_strip).unwrap();
        image.write_data(bytes).unwrap();
    }
}

/// An 8-bit RGB or gray TIFF in strips (the last one short) is read strip by strip into the
/// same compact copy as a PNG of the same pixels, in every mode; a 16-bit TIFF is decoded
/// whole, with the values of `load_picture`.
#[test]
fn tiff_strips_equal_a_png_of_the_same_pixels() {
    let dir = tempfile::tempdir().unwrap();
    let (w, h) = (45, 31);
    for c in [1, 3] {
        let bytes = pattern(w, h, c);
        let tif = dir.path().join(format!("p{c}.tif"));
        let png = dir.path().join(format!("p{c}.png"));
        write_tiff(&tif, &bytes, w, h, c, 4);
        write_png(&png, &bytes, w, h, c);
        let header = read_image_header(&tif).unwrap();
        assert!(header.rows_streamed, "{header:?}");
        assert_eq!((header.width, header.height, header.channels), (w, h, c));
        for mode in [
            ColorMode::Rgb,
            ColorMode::Grayscale,
            ColorMode::BlackAndWhite(0.5),
        ] {
            let from_tiff = load_compact_within(&tif, mode, None).unwrap();
            let from_png = load_compact_within(&png, mode, None).unwrap();
            assert_eq!(from_tiff, from_png, "{c} channels, {mode:?}");
        }
        let budget = MemoryBudget::new((w * h * c - 1) as u64, "test budget");
        let e = load_compact_within(&tif, ColorMode::Rgb, Some(&budget)).unwrap_err();
        assert!(matches!(e, Error::TooLarge(_)), "{e:?}");
    }
    let wide: Vec<u16> = (0..w * h).map(|i| (i * 997 % 65536) as u16).collect();
    let path = dir.path().join("deep.tif");
    let file = std::fs::File::create(&path).unwrap();
    tiff::encoder::TiffEncoder::new(file)
        .unwrap()
        .write_image::<tiff::encoder::colortype::Gray16>(w as u32, h as u32, &wide)
        .unwrap();
    assert!(!read_image_header(&path).unwrap().rows_streamed);
    let compact = load_compact_within(&path, ColorMode::Grayscale, None).unwrap();
    let whole = load_picture(&path, ColorMode::Grayscale).unwrap();
    assert_eq!(compact.to_picture().unwrap(), whole);
}
