//! Shrinking by area means as rows are decoded: the means against an f64 reference, and the
//! streamed PNG and a file decoded whole giving the same picture.

use io::Picture;
use io::image::{AreaShrinker, ColorMode, load_picture, load_shrunk_within, save_picture};

/// A `w x h` picture of `c` channels with texture and 8-bit levels.
fn textured(w: usize, h: usize, c: usize) -> Picture {
    let data = (0..w * h * c)
        .map(|i| ((i * 7919 + (i / c) * 31) % 256) as f32 / 255.0)
        .collect();
    Picture::new(w, h, c, data).unwrap()
}

/// How much of output cell `j` the source cell `k` covers, source cells `scale` output cells
/// wide.
fn overlap(k: usize, j: usize, scale: f64) -> f64 {
    let (a, b) = (k as f64 * scale, (k + 1) as f64 * scale);
    (b.min(j as f64 + 1.0) - a.max(j as f64)).max(0.0)
}

/// The area means of `p` at `w1 x h1`, every source pixel against every output pixel, in f64.
fn reference(p: &Picture, w1: usize, h1: usize) -> Vec<f64> {
    let (sx, sy) = (w1 as f64 / p.width as f64, h1 as f64 / p.height as f64);
    let c = p.channels;
    let mut out = vec![0f64; w1 * h1 * c];
    for j in 0..h1 {
        for i in 0..w1 {
            for y in 0..p.height {
                let wy = overlap(y, j, sy);
                if wy == 0.0 {
                    continue;
                }
                for x in 0..p.width {
                    let w = wy * overlap(x, i, sx);
                    for k in 0..c {
                        let v = f64::from(p.data[(y * p.width + x) * c + k]);
                        out[(j * w1 + i) * c + k] += w * v;
                    }
                }
            }
        }
    }
    out
}

fn shrink(p: &Picture, w1: usize, h1: usize) -> Picture {
    let mut s = AreaShrinker::new((p.width, p.height), (w1, h1), p.channels).unwrap();
    for row in p.data.chunks_exact(p.width * p.channels) {
        s.add_row(row).unwrap();
    }
    s.finish().unwrap()
}

#[test]
fn area_means_match_an_f64_reference() {
    for (w0, h0, w1, h1, c) in [
        (37, 23, 10, 7, 3),
        (30, 20, 15, 10, 1),
        (9, 5, 9, 5, 3),
        (64, 3, 5, 1, 1),
    ] {
        let p = textured(w0, h0, c);
        let got = shrink(&p, w1, h1);
        assert_eq!((got.width, got.height, got.channels), (w1, h1, c));
        for (k, (g, r)) in got.data.iter().zip(reference(&p, w1, h1)).enumerate() {
            assert!(
                (f64::from(*g) - r).abs() < 1e-6,
                "{w0}x{h0} -> {w1}x{h1}, value {k}: {g} vs {r}"
            );
        }
    }
    // Halving is the mean of 2x2 blocks; the same size is the picture itself.
    let p = textured(4, 4, 1);
    let half = shrink(&p, 2, 2);
    let d = &p.data;
    assert!((half.data[0] - (d[0] + d[1] + d[4] + d[5]) / 4.0).abs() < 1e-7);
    assert_eq!(shrink(&p, 4, 4).data, p.data);
}

#[test]
fn streamed_and_whole_decodes_shrink_alike() {
    let dir = tempfile::tempdir().unwrap();
    let p = textured(45, 31, 3);
    let png = dir.path().join("p.png");
    let bmp = dir.path().join("p.bmp");
    save_picture(&p, &png).unwrap();
    save_picture(&p, &bmp).unwrap();
    for mode in [ColorMode::Rgb, ColorMode::Grayscale] {
        let whole = load_picture(&png, mode).unwrap();
        let want = shrink(&whole, 16, 11);
        let streamed = load_shrunk_within(&png, mode, (16, 11), None).unwrap();
        assert_eq!(streamed, want, "{mode:?} from the PNG's rows");
        let decoded = load_shrunk_within(&bmp, mode, (16, 11), None).unwrap();
        assert_eq!(decoded, want, "{mode:?} from a BMP decoded whole");
    }
}

#[test]
fn growing_or_bad_rows_are_errors() {
    assert!(AreaShrinker::new((10, 10), (11, 5), 3).is_err());
    assert!(AreaShrinker::new((10, 10), (0, 5), 3).is_err());
    let mut s = AreaShrinker::new((4, 2), (2, 1), 1).unwrap();
    assert!(s.add_row(&[0.0; 3]).is_err(), "a short row");
    s.add_row(&[0.0; 4]).unwrap();
    assert!(s.finish().is_err(), "a missing row");
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("p.png");
    save_picture(&textured(8, 8, 1), &png).unwrap();
    let e = load_shrunk_within(&png, ColorMode::Rgb, (9, 9), None).unwrap_err();
    assert!(e.to_string().contains("cannot shrink"), "{e}");
}
