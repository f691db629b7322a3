//! The default drawing: a house with a chimney, a tree, the sun and two birds over a hill.

use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI, TAU};

use super::Drawing;
use super::geometry::{Point, Stroke};

/// Stroke width of the default drawing, as a fraction of the image side.
pub const DEFAULT_STROKE_WIDTH: f32 = 0.0125;

const fn p(x: f32, y: f32) -> Point {
    Point::new(x, y)
}

/// The project's default drawing: a house (roof, chimney, arched door, two windows), a tree with
/// a scalloped crown, the sun with rays, two birds, and a gently curved ground line.
///
/// About 6% of the pixels are ink at any size.
pub fn default_drawing() -> Drawing {
    let mut s = Vec::new();
    ground(&mut s);
    house(&mut s);
    sun(&mut s, p(0.80, 0.17), 0.065);
    tree(&mut s, p(0.785, 0.50));
    bird(&mut s, p(0.47, 0.16), 0.045);
    bird(&mut s, p(0.58, 0.25), 0.032);
    Drawing::new(s, DEFAULT_STROKE_WIDTH)
}

fn ground(s: &mut Vec<Stroke>) {
    s.push(Stroke::Cubic(
        p(0.03, 0.86),
        p(0.30, 0.82),
        p(0.62, 0.90),
        p(0.97, 0.84),
    ));
}

fn house(s: &mut Vec<Stroke>) {
    let (left, right, eave, floor) = (0.15, 0.51, 0.56, 0.848);
    // Walls and roof.
    // The walls stand on the ground line, which serves as the floor.
    s.push(Stroke::Line(p(left, eave), p(left, floor)));
    s.push(Stroke::Line(p(right, eave), p(right, floor)));
    s.push(Stroke::Polyline(vec![
        p(0.11, eave),
        p(0.33, 0.36),
        p(0.55, eave),
        p(0.11, eave),
    ]));
    // Chimney, standing on the right slope (y = 0.36 + (x - 0.33) * 0.2 / 0.22).
    let slope = |x: f32| 0.36 + (x - 0.33) * (0.20 / 0.22);
    s.push(Stroke::Polyline(vec![
        p(0.42, slope(0.42)),
        p(0.42, 0.37),
        p(0.47, 0.37),
        p(0.47, slope(0.47)),
    ]));
    // Smoke: a wavy cubic.
    s.push(Stroke::Cubic(
        p(0.445, 0.33),
        p(0.40, 0.29),
        p(0.49, 0.26),
        p(0.44, 0.21),
    ));
    // Arched door with a knob.
    let (d0, d1, top) = (0.29, 0.37, 0.73);
    let floor = 0.846;
    s.push(Stroke::Line(p(d0, floor), p(d0, top)));
    s.push(Stroke::Line(p(d1, floor), p(d1, top)));
    s.push(Stroke::Arc {
        center: p((d0 + d1) / 2.0, top),
        radius: (d1 - d0) / 2.0,
        start: PI,
        end: TAU,
    });
    s.push(Stroke::Circle {
        center: p(0.35, 0.80),
        radius: 0.004,
    });
    // Two windows with crossbars.
    for x in [0.19, 0.42] {
        let (w, y) = (0.065, 0.62);
        s.push(Stroke::Polyline(vec![
            p(x, y),
            p(x + w, y),
            p(x + w, y + w),
            p(x, y + w),
            p(x, y),
        ]));
        s.push(Stroke::Line(p(x + w / 2.0, y), p(x + w / 2.0, y + w)));
        s.push(Stroke::Line(p(x, y + w / 2.0), p(x + w, y + w / 2.0)));
    }
}

fn sun(s: &mut Vec<Stroke>, center: Point, radius: f32) {
    s.push(Stroke::Circle { center, radius });
    for k in 0..8 {
        let a = k as f32 * FRAC_PI_4 + FRAC_PI_4 / 2.0;
        let (c, sn) = (a.cos(), a.sin());
        let (r0, r1) = (radius * 1.45, radius * 1.95);
        s.push(Stroke::Line(
            p(center.x + r0 * c, center.y + r0 * sn),
            p(center.x + r1 * c, center.y + r1 * sn),
        ));
    }
}

/// A scalloped crown: lobes on a ring around `center`, each drawn as the outer arc between its
/// outer intersections with its neighbours, then a trunk with one branch.
fn tree(s: &mut Vec<Stroke>, center: Point) {
    const LOBES: usize = 7;
    let (ring, lobe_r) = (0.085_f32, 0.05_f32);
    let centers: Vec<Point> = (0..LOBES)
        .map(|k| {
            let a = -FRAC_PI_2 + TAU * k as f32 / LOBES as f32;
            p(center.x + ring * a.cos(), center.y + ring * a.sin())
        })
        .collect();
    // Outer intersection of the equal circles around `a` and `b`.
    let outer = |a: Point, b: Point| -> Point {
        let (mx, my) = ((a.x + b.x) / 2.0, (a.y + b.y) / 2.0);
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let d = dx.hypot(dy);
        let h = (lobe_r * lobe_r - d * d / 4.0).max(0.0).sqrt();
        let (nx, ny) = (-dy / d * h, dx / d * h);
        let (p1, p2) = (p(mx + nx, my + ny), p(mx - nx, my - ny));
        let far = |q: Point| (q.x - center.x).hypot(q.y - center.y);
        if far(p1) > far(p2) { p1 } else { p2 }
    };
    for k in 0..LOBES {
        let c = centers[k];
        let prev = outer(centers[(k + LOBES - 1) % LOBES], c);
        let next = outer(c, centers[(k + 1) % LOBES]);
        let outward = (c.y - center.y).atan2(c.x - center.x);
        let angle = |q: Point| {
            let mut a = (q.y - c.y).atan2(q.x - c.x);
            // Unwrap around the outward direction so the arc passes through it.
            while a < outward - PI {
                a += TAU;
            }
            while a > outward + PI {
                a -= TAU;
            }
            a
        };
        s.push(Stroke::Arc {
            center: c,
            radius: lobe_r,
            start: angle(prev),
            end: angle(next),
        });
    }
    // Trunk from the ground to the bottom of the crown, and a branch inside the crown.
    let bottom = center.y + ring + (lobe_r * lobe_r - 0.02_f32 * 0.02).sqrt() - 0.01;
    for (x_ground, x_top) in [
        (center.x - 0.03, center.x - 0.02),
        (center.x + 0.03, center.x + 0.02),
    ] {
        s.push(Stroke::Quadratic(
            p(x_ground, 0.855),
            p(x_top, 0.75),
            p(x_top, bottom),
        ));
    }
    s.push(Stroke::Quadratic(
        p(center.x, bottom - 0.01),
        p(center.x, center.y + 0.03),
        p(center.x - 0.04, center.y - 0.01),
    ));
    s.push(Stroke::Line(
        p(center.x + 0.003, center.y + 0.06),
        p(center.x + 0.035, center.y + 0.02),
    ));
}

/// A bird in flight: two quadratic wings meeting at `at`.
fn bird(s: &mut Vec<Stroke>, at: Point, span: f32) {
    let h = span * 0.45;
    s.push(Stroke::Quadratic(
        p(at.x - span, at.y - h * 0.2),
        p(at.x - span * 0.5, at.y - h),
        at,
    ));
    s.push(Stroke::Quadratic(
        at,
        p(at.x + span * 0.5, at.y - h),
        p(at.x + span, at.y - h * 0.2),
    ));
}
