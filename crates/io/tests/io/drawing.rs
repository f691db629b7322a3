//! The bundled line drawing.

use io::drawing::{Drawing, Point, Stroke, default_drawing};
use io::image::{ink_iou, pixel_accuracy};

#[test]
fn renders_pure_black_and_white_with_sensible_ink_at_any_size() {
    let drawing = default_drawing();
    for n in [50, 64, 100, 200, 333] {
        let p = drawing.render(n).unwrap();
        assert_eq!((p.width, p.height, p.channels), (n, n, 1));
        assert!(p.data.iter().all(|&v| v == 0.0 || v == 1.0), "n = {n}");
        let ink = p.ink_fraction();
        assert!((0.04..=0.11).contains(&ink), "n = {n}: ink fraction {ink}");
    }
}

#[test]
fn render_at_double_size_shrunk_agrees_with_render() {
    let drawing = default_drawing();
    for n in [100, 128, 200] {
        let small = drawing.render(n).unwrap();
        // Each 2x2 block of the big render holds 0 to 4 ink pixels.
        let shrunk = drawing.render(2 * n).unwrap().downsample(2).unwrap();
        let (mut clear, mut agree, mut ties) = (0usize, 0usize, 0usize);
        for (&s, &b) in small.data.iter().zip(&shrunk.data) {
            if b == 0.5 {
                // Two ink pixels of four: either answer is right.
                ties += 1;
            } else {
                clear += 1;
                agree += usize::from((s < 0.5) == (b < 0.5));
            }
        }
        let acc = agree as f64 / clear as f64;
        let tie_share = ties as f64 / (n * n) as f64;
        assert!(acc > 0.99, "n = {n}: {acc} of the clear pixels agree");
        assert!(
            tie_share < 0.08,
            "n = {n}: {tie_share} of the pixels are ties"
        );
        let agree_all = (agree + ties) as f64 / (n * n) as f64;
        assert!(agree_all > 0.99, "n = {n}: {agree_all} of all pixels agree");
        // Counting ties as ink or as paper, one of the two overlaps the render well.
        let iou = [0.501, 0.5]
            .map(|cut| ink_iou(&shrunk.threshold(cut), &small).unwrap())
            .into_iter()
            .fold(0.0, f64::max);
        assert!(iou > 0.75, "n = {n}: best ink IoU {iou}");
        let acc_all = pixel_accuracy(&shrunk.threshold(0.501), &small).unwrap();
        assert!(acc_all > 0.97, "n = {n}: pixel accuracy {acc_all}");
    }
}

#[test]
fn rendering_is_deterministic_and_has_curves() {
    let d = default_drawing();
    assert_eq!(d.render(120).unwrap(), d.render(120).unwrap());
    let curves = d
        .strokes
        .iter()
        .filter(|s| {
            matches!(
                s,
                Stroke::Arc { .. }
                    | Stroke::Circle { .. }
                    | Stroke::Quadratic(..)
                    | Stroke::Cubic(..)
            )
        })
        .count();
    assert!(curves >= 10, "{curves} curved strokes");
    assert!((0.012..=0.02).contains(&d.stroke_width));
}

#[test]
fn horizontal_line_covers_the_expected_rows() {
    let line = Drawing::new(
        vec![Stroke::Line(Point::new(0.0, 0.5), Point::new(1.0, 0.5))],
        0.1,
    );
    let p = line.render(100).unwrap();
    // Ink where |y - 0.5| <= 0.05: pixel rows 45 to 54, every column.
    for y in 0..100 {
        let row_ink = (0..100).filter(|&x| p.pixel(x, y)[0] == 0.0).count();
        let expected = if (45..55).contains(&y) { 100 } else { 0 };
        assert_eq!(row_ink, expected, "row {y}");
    }
}

#[test]
fn circle_ink_matches_its_area() {
    let (r, w, n) = (0.3_f64, 0.02_f64, 200);
    let circle = Drawing::new(
        vec![Stroke::Circle {
            center: Point::new(0.5, 0.5),
            radius: r as f32,
        }],
        w as f32,
    );
    let p = circle.render(n).unwrap();
    let expected = std::f64::consts::TAU * r * w * (n * n) as f64;
    let ink = p.ink_pixels() as f64;
    assert!(
        (ink - expected).abs() / expected < 0.05,
        "{ink} vs {expected}"
    );
    // The centre and the corners are paper; a point on the circle is ink.
    assert_eq!(p.pixel(100, 100)[0], 1.0);
    assert_eq!(p.pixel(0, 0)[0], 1.0);
    assert_eq!(p.pixel(100, 40)[0], 0.0);
    // A half arc inks about half as much.
    let arc = Drawing::new(
        vec![Stroke::Arc {
            center: Point::new(0.5, 0.5),
            radius: r as f32,
            start: 0.0,
            end: std::f32::consts::PI,
        }],
        w as f32,
    );
    let half = arc.render(n).unwrap().ink_pixels() as f64;
    assert!((half / ink - 0.5).abs() < 0.03, "{half} vs {ink}");
    // The lower half (y down: angles 0..pi) only.
    let a = arc.render(n).unwrap();
    assert_eq!(a.pixel(100, 40)[0], 1.0);
    assert_eq!(a.pixel(100, 160)[0], 0.0);
}

#[test]
fn bezier_passes_through_its_end_points() {
    let curve = Drawing::new(
        vec![
            Stroke::Cubic(
                Point::new(0.1, 0.9),
                Point::new(0.1, 0.1),
                Point::new(0.9, 0.1),
                Point::new(0.9, 0.9),
            ),
            Stroke::Quadratic(
                Point::new(0.2, 0.95),
                Point::new(0.5, 0.5),
                Point::new(0.8, 0.95),
            ),
        ],
        0.02,
    );
    let p = curve.render(100).unwrap();
    assert_eq!(p.pixel(10, 89)[0], 0.0);
    assert_eq!(p.pixel(89, 89)[0], 0.0);
    // Cubic midpoint: (0.5, 0.3); quadratic midpoint: (0.5, 0.725).
    assert_eq!(p.pixel(50, 30)[0], 0.0);
    assert_eq!(p.pixel(50, 72)[0], 0.0);
    assert_eq!(p.pixel(50, 50)[0], 1.0);
}

#[test]
fn bad_render_requests_are_errors() {
    assert!(default_drawing().render(0).is_err());
    assert!(Drawing::new(vec![], 0.0).render(10).is_err());
    let empty = Drawing::new(vec![], 0.01).render(10).unwrap();
    assert_eq!(empty.ink_pixels(), 0);
}
