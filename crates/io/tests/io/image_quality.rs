//! SSIM against a direct f64 reference and closed forms; colour and line-art detection;
//! aspect-preserving sizes.

use io::default_drawing;
use io::image::{Picture, fit_longest_side, ssim};

/// Deterministic pseudo-random values in [0, 1] (a small LCG).
fn values(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1u32 << 24) as f32
        })
        .collect()
}

/// SSIM written out window by window in f64, straight from the definition (no separable
/// filtering), with an explicit 2-D Gaussian window of side `k`.
fn ssim_reference(a: &Picture, b: &Picture, k: usize) -> f64 {
    let (w, h, c) = (a.width, a.height, a.channels);
    let mid = (k / 2) as f64;
    let mut win = vec![0f64; k * k];
    for y in 0..k {
        for x in 0..k {
            let d2 = (x as f64 - mid).powi(2) + (y as f64 - mid).powi(2);
            win[y * k + x] = (-d2 / (2.0 * 1.5 * 1.5)).exp();
        }
    }
    let s: f64 = win.iter().sum();
    win.iter_mut().for_each(|v| *v /= s);
    let (c1, c2) = (1e-4, 9e-4);
    let (mut total, mut n) = (0.0, 0);
    for ch in 0..c {
        for y0 in 0..=h - k {
            for x0 in 0..=w - k {
                let (mut mx, mut my, mut xx, mut yy, mut xy) = (0.0, 0.0, 0.0, 0.0, 0.0);
                for y in 0..k {
                    for x in 0..k {
                        let i = ((y0 + y) * w + x0 + x) * c + ch;
                        let (p, q, g) = (a.data[i] as f64, b.data[i] as f64, win[y * k + x]);
                        mx += g * p;
                        my += g * q;
                        xx += g * p * p;
                        yy += g * q * q;
                        xy += g * p * q;
                    }
                }
                let (vx, vy, cov) = (xx - mx * mx, yy - my * my, xy - mx * my);
                total += ((2.0 * mx * my + c1) * (2.0 * cov + c2))
                    / ((mx * mx + my * my + c1) * (vx + vy + c2));
                n += 1;
            }
        }
    }
    total / n as f64
}

fn picture(w: usize, h: usize, c: usize, seed: u32) -> Picture {
    Picture::new(w, h, c, values(w * h * c, seed)).unwrap()
}

#[test]
fn ssim_matches_the_windowed_definition() {
    for (w, h, c) in [(23, 17, 3), (11, 11, 1), (30, 12, 1)] {
        let a = picture(w, h, c, 1);
        let mut b = a.clone();
        // A noisy, darker copy: SSIM well below 1 but far from 0.
        let noise = values(b.data.len(), 9);
        b.data
            .iter_mut()
            .zip(noise)
            .for_each(|(v, n)| *v = (*v * 0.8 + 0.2 * n).clamp(0.0, 1.0));
        let ours = ssim(&a, &b).unwrap();
        let reference = ssim_reference(&a, &b, 11);
        assert!(
            (ours - reference).abs() < 1e-9,
            "{w}x{h}x{c}: {ours} vs {reference}"
        );
        assert!(ours < 0.99 && ours > 0.1, "{ours}");
        assert!(
            (ssim(&b, &a).unwrap() - ours).abs() < 1e-12,
            "SSIM is symmetric"
        );
    }
}

#[test]
fn ssim_of_identical_pictures_is_one() {
    let a = picture(16, 16, 3, 4);
    assert!((ssim(&a, &a).unwrap() - 1.0).abs() < 1e-12);
}

/// Two flat pictures: no variance, so SSIM is the luminance term alone,
/// `(2 a b + C1) / (a^2 + b^2 + C1)`.
#[test]
fn ssim_of_flat_pictures_is_the_luminance_term() {
    let (a, b) = (0.25f32, 0.75f32);
    let pa = Picture::filled(20, 14, 1, a).unwrap();
    let pb = Picture::filled(20, 14, 1, b).unwrap();
    let (a, b) = (f64::from(a), f64::from(b));
    let expected = (2.0 * a * b + 1e-4) / (a * a + b * b + 1e-4);
    assert!((ssim(&pa, &pb).unwrap() - expected).abs() < 1e-9);
}

/// Pictures smaller than the window use the largest odd window that fits.
#[test]
fn ssim_of_small_pictures_uses_a_smaller_window() {
    let a = picture(6, 9, 1, 2);
    let b = picture(6, 9, 1, 3);
    let ours = ssim(&a, &b).unwrap();
    assert!((ours - ssim_reference(&a, &b, 5)).abs() < 1e-9);
}

#[test]
fn ssim_refuses_different_sizes() {
    let a = picture(12, 12, 1, 1);
    let b = picture(12, 13, 1, 1);
    let c = picture(12, 12, 3, 1);
    assert!(ssim(&a, &b).is_err());
    assert!(ssim(&a, &c).is_err());
}

#[test]
fn colour_is_told_from_the_pixels() {
    // Gray stored as RGB, with one-step noise as a JPEG leaves: no colour.
    let mut gray = Picture::filled(8, 8, 3, 0.5).unwrap();
    gray.data[4] += 1.0 / 255.0;
    assert!(!gray.has_color());
    assert!(!picture(8, 8, 1, 5).has_color());
    let mut red = gray.clone();
    red.pixel_mut(3, 3).copy_from_slice(&[0.9, 0.1, 0.1]);
    assert!(red.has_color());
}

#[test]
fn line_art_is_mostly_black_and_white() {
    let drawing = default_drawing().render(120).unwrap();
    assert!(drawing.is_line_art());
    assert!(drawing.threshold(0.5).is_line_art());
    // Random gray levels and a smooth gradient are not line art.
    assert!(!picture(40, 40, 1, 7).is_line_art());
    let ramp: Vec<f32> = (0..400).map(|i| (i % 20) as f32 / 19.0).collect();
    assert!(!Picture::new(20, 20, 1, ramp).unwrap().is_line_art());
    // Colour pictures are not, even when saturated.
    let mut colour = Picture::filled(10, 10, 3, 1.0).unwrap();
    colour.pixel_mut(0, 0).copy_from_slice(&[1.0, 0.0, 0.0]);
    assert!(!colour.is_line_art());
}

#[test]
fn longest_side_keeps_the_aspect_ratio() {
    assert_eq!(fit_longest_side(400, 300, 200), (200, 150));
    assert_eq!(fit_longest_side(300, 400, 200), (150, 200));
    assert_eq!(fit_longest_side(64, 64, 256), (256, 256));
    assert_eq!(fit_longest_side(1000, 3, 100), (100, 1));
    assert_eq!(fit_longest_side(101, 33, 50), (50, 16));
}
