//! Pictures: image files, pixel CSV round trips, coordinates, metrics, resizing.

use std::path::Path;

use io::Error;
use io::image::coords::{coord_to_pixel, coordinate_grid, nearest_pixel, pixel_to_coord};
use io::image::{
    ColorMode, Picture, PixelValues, ResizeFilter, decode_pixel_csv, encode_pixel_csv, ink_iou,
    load_picture, mse, pixel_accuracy, psnr, read_pixel_csv, save_png, write_pixel_csv,
};

/// Deterministic pseudo-random bytes (a small LCG), so the tests need no RNG crate.
fn bytes(n: usize, seed: u32) -> Vec<u8> {
    let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 24) as u8
        })
        .collect()
}

fn save_with_image(path: &Path, w: u32, h: u32, channels: usize, data: &[u8]) {
    let color = if channels == 1 {
        image::ExtendedColorType::L8
    } else {
        image::ExtendedColorType::Rgb8
    };
    image::save_buffer(path, data, w, h, color).unwrap();
}

fn csv_round_trip(picture: &Picture, dir: &Path, values: PixelValues) -> Picture {
    let path = dir.join(format!("p{}_{:?}.csv", picture.channels, values));
    write_pixel_csv(picture, &path, values).unwrap();
    read_pixel_csv(&path, values).unwrap()
}

#[test]
fn gray_image_csv_round_trip_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let (w, h) = (13, 7);
    let raw = bytes(w * h, 1);
    let png = dir.path().join("gray.png");
    save_with_image(&png, w as u32, h as u32, 1, &raw);
    let picture = load_picture(&png, ColorMode::Grayscale).unwrap();
    assert_eq!((picture.width, picture.height, picture.channels), (w, h, 1));
    assert_eq!(
        picture.to_bytes(),
        raw,
        "8-bit values load as exactly v / 255"
    );
    let back = csv_round_trip(&picture, dir.path(), PixelValues::Bytes);
    assert_eq!(back, picture);
    // And through PNG again.
    let png2 = dir.path().join("gray2.png");
    save_png(&back, &png2).unwrap();
    assert_eq!(load_picture(&png2, ColorMode::Grayscale).unwrap(), picture);
}

#[test]
fn rgb_image_csv_round_trip_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let (w, h) = (6, 11);
    let raw = bytes(w * h * 3, 2);
    let png = dir.path().join("rgb.png");
    save_with_image(&png, w as u32, h as u32, 3, &raw);
    let picture = load_picture(&png, ColorMode::Rgb).unwrap();
    assert_eq!((picture.width, picture.height, picture.channels), (w, h, 3));
    assert_eq!(picture.to_bytes(), raw);
    let back = csv_round_trip(&picture, dir.path(), PixelValues::Bytes);
    assert_eq!(back, picture);
    let text = std::fs::read_to_string(dir.path().join("p3_Bytes.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("x,y,r,g,b"));
    assert_eq!(
        lines.next(),
        Some(format!("0,0,{},{},{}", raw[0], raw[1], raw[2]).as_str())
    );
    assert_eq!(
        lines.next(),
        Some(format!("1,0,{},{},{}", raw[3], raw[4], raw[5]).as_str()),
        "row-major: x varies fastest"
    );
    assert_eq!(text.lines().count(), 1 + w * h);
    // WebP (lossless) decodes to the same pixels.
    let webp = dir.path().join("rgb.webp");
    save_with_image(&webp, w as u32, h as u32, 3, &raw);
    assert_eq!(load_picture(&webp, ColorMode::Rgb).unwrap(), picture);
}

#[test]
fn black_and_white_image_csv_round_trip_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let (w, h) = (9, 4);
    let raw = bytes(w * h, 3);
    let png = dir.path().join("bw_source.png");
    save_with_image(&png, w as u32, h as u32, 1, &raw);
    let bw = load_picture(&png, ColorMode::BlackAndWhite(0.5)).unwrap();
    let expected: Vec<f32> = raw
        .iter()
        .map(|&b| if f32::from(b) / 255.0 < 0.5 { 0.0 } else { 1.0 })
        .collect();
    assert_eq!(bw.data, expected);
    assert!(bw.data.contains(&0.0) && bw.data.contains(&1.0));
    let back = csv_round_trip(&bw, dir.path(), PixelValues::Bytes);
    assert_eq!(back, bw);
    let text = std::fs::read_to_string(dir.path().join("p1_Bytes.csv")).unwrap();
    assert!(text.starts_with("x,y,value\n"));
    assert!(
        text.lines()
            .skip(1)
            .all(|l| l.ends_with(",0") || l.ends_with(",255"))
    );
    // Threshold option: everything below 0.99 is ink.
    let dark = load_picture(&png, ColorMode::BlackAndWhite(0.99)).unwrap();
    assert!(dark.ink_pixels() >= bw.ink_pixels());
}

#[test]
fn float_values_round_trip_any_picture() {
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<f32> = (0..5 * 3 * 3).map(|i| (i as f32 * 0.137).fract()).collect();
    let picture = Picture::new(5, 3, 3, data).unwrap();
    let back = csv_round_trip(&picture, dir.path(), PixelValues::Unit);
    assert_eq!(back, picture);
}

#[test]
fn transparent_pixels_are_composited_over_white() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("alpha.png");
    // Black opaque, black fully transparent, black half transparent.
    let px = [0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 128];
    image::save_buffer(&path, &px, 3, 1, image::ExtendedColorType::Rgba8).unwrap();
    let p = load_picture(&path, ColorMode::Grayscale).unwrap();
    assert_eq!(p.data[0], 0.0);
    assert_eq!(p.data[1], 1.0);
    assert!((p.data[2] - (1.0 - 128.0 / 255.0)).abs() < 1e-6);
}

#[test]
fn rgb_to_gray_uses_rec709_luma() {
    let p = Picture::new(3, 1, 3, vec![1., 0., 0., 0., 1., 0., 0., 0., 1.]).unwrap();
    let g = p.to_grayscale();
    let expected = [0.2126, 0.7152, 0.0722];
    for (a, b) in g.data.iter().zip(expected) {
        assert!((a - b).abs() < 1e-6);
    }
}

fn decode(text: &str) -> io::Result<Picture> {
    decode_pixel_csv(text.as_bytes(), "pix.csv", PixelValues::Bytes)
}

#[test]
fn pixel_csv_size_comes_from_coordinates_and_order_is_free() {
    let p = decode("x,y,value\n1,1,40\n0,0,10\n2,0,30\n1,0,20\n0,1,50\n2,1,255\n").unwrap();
    assert_eq!((p.width, p.height, p.channels), (3, 2, 1));
    assert_eq!(p.to_bytes(), [10, 20, 30, 50, 40, 255]);
}

#[test]
fn pixel_csv_errors() {
    let msg = |text: &str| decode(text).unwrap_err().to_string();
    let m = msg("x,y,value\n0,0,1\n1,0,1\n1,0,2\n0,1,0\n1,1,0\n");
    assert!(
        m.contains("line 4") && m.contains("pixel (1, 0) is given twice (first on line 3)"),
        "{m}"
    );
    let m = msg("x,y,value\n0,0,1\n1,0,1\n0,1,1\n");
    assert!(m.contains("pixel (1, 1) is missing"), "{m}");
    let m = msg("x,y,value\n0,0,1\n0.5,0,1\n");
    assert!(
        m.contains("line 3") && m.contains("`0.5` is not a pixel index"),
        "{m}"
    );
    let m = msg("x,y,value\n0,-1,1\n");
    assert!(m.contains("line 2") && m.contains("column `y`"), "{m}");
    let m = msg("x,y,value\n0,0,256\n");
    assert!(
        m.contains("`256` is not a whole number from 0 to 255"),
        "{m}"
    );
    let m = msg("x,y,value\n0,0,1\n1,0\n");
    assert!(m.contains("line 3") && m.contains("2 fields"), "{m}");
    let m = msg("a,b,c\n0,0,1\n");
    assert!(m.contains("not `x,y,value` or `x,y,r,g,b`"), "{m}");
    let m = msg("x,y,r,g\n0,0,1,1\n");
    assert!(m.contains("header"), "{m}");
    assert!(matches!(decode("").unwrap_err(), Error::EmptyFile { .. }));
    assert!(matches!(
        decode("x,y,value\n").unwrap_err(),
        Error::NoDataRows { .. }
    ));
    // Huge coordinates do not allocate a huge picture.
    let m = msg("x,y,value\n4000000000,4000000000,1\n");
    assert!(m.contains("only 1 rows"), "{m}");
    let e = decode_pixel_csv(
        "x,y,value\n0,0,1.5\n".as_bytes(),
        "f.csv",
        PixelValues::Unit,
    )
    .unwrap_err();
    assert!(e.to_string().contains("not a number from 0 to 1"), "{e}");
    assert!(matches!(
        read_pixel_csv("/no/such/pixels.csv", PixelValues::Bytes).unwrap_err(),
        Error::FileNotFound { .. }
    ));
}

#[test]
fn bad_image_file_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.png");
    std::fs::write(&garbage, b"this is not an image at all").unwrap();
    let e = load_picture(&garbage, ColorMode::Grayscale).unwrap_err();
    assert!(matches!(e, Error::Image { .. }), "{e:?}");
    assert!(e.to_string().contains("garbage.png"), "{e}");
    // A PNG signature followed by junk: recognised, but not decodable.
    let broken = dir.path().join("broken.png");
    let mut b = b"\x89PNG\r\n\x1a\n".to_vec();
    b.extend_from_slice(&[0u8; 40]);
    std::fs::write(&broken, &b).unwrap();
    let e = load_picture(&broken, ColorMode::Rgb).unwrap_err();
    assert!(e.to_string().contains("broken.png"), "{e}");
    let empty = dir.path().join("empty.webp");
    std::fs::write(&empty, b"").unwrap();
    let e = load_picture(&empty, ColorMode::Rgb).unwrap_err();
    assert!(
        e.to_string().contains("empty.webp") && e.to_string().contains("empty"),
        "{e}"
    );
    let e = load_picture(dir.path().join("absent.png"), ColorMode::Rgb).unwrap_err();
    assert!(matches!(e, Error::FileNotFound { .. }) && e.to_string().contains("absent.png"));
}

#[test]
fn coordinates_end_exactly_at_minus_one_and_one() {
    for n in [2, 3, 7, 50, 199, 200, 512, 1024, 4096] {
        assert_eq!(pixel_to_coord(0, n), -1.0, "n = {n}");
        assert_eq!(pixel_to_coord(n - 1, n), 1.0, "n = {n}");
        for i in 0..n.min(300) {
            let c = pixel_to_coord(i, n);
            assert!((-1.0..=1.0).contains(&c));
            assert_eq!(nearest_pixel(c, n), i, "inverse of pixel {i} of {n}");
            assert!((coord_to_pixel(c, n) - i as f32).abs() < 1e-3);
        }
    }
    assert_eq!(pixel_to_coord(1, 3), 0.0);
    assert_eq!(pixel_to_coord(0, 1), 0.0);
    assert_eq!(nearest_pixel(0.3, 1), 0);
    assert_eq!(nearest_pixel(-5.0, 10), 0);
    assert_eq!(nearest_pixel(5.0, 10), 9);
    assert_eq!(pixel_to_coord(1, 5), -0.5);
}

#[test]
fn coordinate_grid_is_row_major_x_then_y() {
    let g = coordinate_grid(3, 2);
    assert_eq!(g.len(), 12);
    let pairs: Vec<(f32, f32)> = g.chunks(2).map(|c| (c[0], c[1])).collect();
    assert_eq!(
        pairs,
        [
            (-1.0, -1.0),
            (0.0, -1.0),
            (1.0, -1.0),
            (-1.0, 1.0),
            (0.0, 1.0),
            (1.0, 1.0)
        ]
    );
    let g = coordinate_grid(4, 5);
    // Pixel (x = 3, y = 2) is row-major index 2 * 4 + 3.
    let i = 2 * 4 + 3;
    assert_eq!((g[2 * i], g[2 * i + 1]), (1.0, 0.0));
}

#[test]
fn picture_to_dataset_uses_the_grid() {
    let p = Picture::from_bytes(2, 3, 1, &[0, 51, 102, 153, 204, 255]).unwrap();
    let d = p.to_dataset();
    assert_eq!((d.rows, d.n_features, d.n_targets), (6, 2, 1));
    assert_eq!(d.x, coordinate_grid(2, 3));
    assert_eq!(d.y, p.data);
    assert_eq!(d.feature_names, ["x", "y"]);
    assert_eq!(d.target_names, ["value"]);
    let rgb = Picture::filled(2, 2, 3, 0.5).unwrap().to_dataset();
    assert_eq!(rgb.target_names, ["r", "g", "b"]);
}

#[test]
fn picture_constructors_check_their_input() {
    assert!(Picture::new(2, 2, 1, vec![0.0; 3]).is_err());
    assert!(Picture::new(0, 2, 1, vec![]).is_err());
    assert!(Picture::new(1, 1, 2, vec![0.0; 2]).is_err());
    assert!(Picture::new(1, 1, 1, vec![1.5]).is_err());
    assert!(Picture::new(1, 1, 1, vec![f32::NAN]).is_err());
    let p = Picture::from_predictions(2, 1, 1, &[-0.5, 7.0]).unwrap();
    assert_eq!(p.data, [0.0, 1.0]);
}

#[test]
fn metrics_on_known_pictures() {
    let black = Picture::filled(4, 4, 1, 0.0).unwrap();
    let gray = Picture::filled(4, 4, 1, 0.5).unwrap();
    assert!((mse(&gray, &black).unwrap() - 0.25).abs() < 1e-12);
    let p = psnr(&gray, &black).unwrap();
    assert!((p - 10.0 * 4f64.log10()).abs() < 1e-9, "{p}");
    assert_eq!(psnr(&black, &black).unwrap(), f64::INFINITY);

    // Reference: ink in the left column (4 pixels); prediction: ink in the top row (4 pixels),
    // overlapping at (0, 0).
    let mut reference = Picture::filled(4, 4, 1, 1.0).unwrap();
    let mut prediction = reference.clone();
    for i in 0..4 {
        reference.pixel_mut(0, i)[0] = 0.0;
        prediction.pixel_mut(i, 0)[0] = 0.2;
    }
    assert!((ink_iou(&prediction, &reference).unwrap() - 1.0 / 7.0).abs() < 1e-12);
    assert!((pixel_accuracy(&prediction, &reference).unwrap() - 10.0 / 16.0).abs() < 1e-12);
    let white = Picture::filled(4, 4, 1, 1.0).unwrap();
    assert_eq!(ink_iou(&white, &white).unwrap(), 1.0);
    assert_eq!(ink_iou(&black, &white).unwrap(), 0.0);

    let small = Picture::filled(3, 4, 1, 0.0).unwrap();
    let e = psnr(&small, &black).unwrap_err();
    assert!(e.to_string().contains("3x4x1 vs 4x4x1"), "{e}");
    assert!(ink_iou(&small, &black).is_err());
    assert!(pixel_accuracy(&small, &black).is_err());
}

#[test]
fn resizing() {
    let flat = Picture::filled(10, 6, 3, 0.25).unwrap();
    let big = flat.resize_bicubic(23, 17).unwrap();
    assert_eq!((big.width, big.height, big.channels), (23, 17, 3));
    assert!(big.data.iter().all(|v| (v - 0.25).abs() < 1e-5));
    // Upscaled edges overshoot; the result stays in [0, 1].
    let mut edge = Picture::filled(8, 8, 1, 1.0).unwrap();
    for y in 0..8 {
        for x in 0..4 {
            edge.pixel_mut(x, y)[0] = 0.0;
        }
    }
    let up = edge.resize(32, 32, ResizeFilter::Lanczos3).unwrap();
    assert!(up.data.iter().all(|v| (0.0..=1.0).contains(v)));
    assert!(up.pixel(0, 5)[0] < 1e-5);
    assert!(up.pixel(31, 5)[0] > 1.0 - 1e-5);
    let nn = edge.resize(16, 16, ResizeFilter::Nearest).unwrap();
    assert_eq!(nn.ink_pixels(), 128);
    // Box downsampling averages blocks.
    let p = Picture::from_bytes(2, 2, 1, &[0, 255, 255, 255]).unwrap();
    let d = p.downsample(2).unwrap();
    assert_eq!(d.data, [0.75]);
    assert!(p.downsample(3).is_err());
    assert!(p.resize(0, 4, ResizeFilter::Bicubic).is_err());
}

#[test]
fn encode_to_memory_and_validation() {
    let p = Picture::from_bytes(2, 1, 1, &[3, 200]).unwrap();
    let mut out = Vec::new();
    encode_pixel_csv(&p, &mut out, PixelValues::Bytes).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "x,y,value\n0,0,3\n1,0,200\n"
    );
    let broken = Picture {
        width: 2,
        height: 2,
        channels: 1,
        data: vec![0.0; 3],
    };
    assert!(encode_pixel_csv(&broken, Vec::new(), PixelValues::Bytes).is_err());
    let dir = tempfile::tempdir().unwrap();
    assert!(save_png(&broken, dir.path().join("b.png")).is_err());
    let e = save_png(&p, dir.path().join("no_dir/x.png")).unwrap_err();
    assert!(e.to_string().contains("no_dir/x.png"), "{e}");
}
