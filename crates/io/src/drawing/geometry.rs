//! Strokes and their flattening into line segments.

use std::f32::consts::TAU;

/// A point in the unit square, `(0, 0)` top-left, `y` down.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Horizontal position, 0 at the left edge, 1 at the right.
    pub x: f32,
    /// Vertical position, 0 at the top edge, 1 at the bottom.
    pub y: f32,
}

impl Point {
    /// A point.
    pub const fn new(x: f32, y: f32) -> Self {
        Self { x, y }
    }

    fn lerp(self, other: Point, t: f32) -> Point {
        Point::new(
            self.x + (other.x - self.x) * t,
            self.y + (other.y - self.y) * t,
        )
    }

    fn dist(self, other: Point) -> f32 {
        (self.x - other.x).hypot(self.y - other.y)
    }
}

/// One stroke of a drawing.
///
/// Angles are in radians, a point at angle `a` on a circle being `center + r (cos a, sin a)`:
/// with `y` down, increasing angles turn clockwise on screen.
#[derive(Debug, Clone, PartialEq)]
pub enum Stroke {
    /// A straight segment.
    Line(Point, Point),
    /// A connected chain of straight segments.
    Polyline(Vec<Point>),
    /// A whole circle.
    Circle {
        /// Centre.
        center: Point,
        /// Radius.
        radius: f32,
    },
    /// Part of a circle, from `start` to `end` (radians; `end < start` runs the other way).
    Arc {
        /// Centre.
        center: Point,
        /// Radius.
        radius: f32,
        /// Start angle.
        start: f32,
        /// End angle.
        end: f32,
    },
    /// A quadratic Bézier curve: from the first point to the last, pulled towards the middle one.
    Quadratic(Point, Point, Point),
    /// A cubic Bézier curve: from the first point to the last, with two control points.
    Cubic(Point, Point, Point, Point),
}

/// Largest distance between a flattened curve and the true curve, as a fraction of the side
/// (well under a pixel at 4096 pixels).
const TOLERANCE: f32 = 2e-5;

impl Stroke {
    /// The stroke as line segments that stay within a tiny tolerance of the true curve.
    pub fn flatten(&self) -> Vec<[Point; 2]> {
        let points: Vec<Point> = match self {
            Stroke::Line(a, b) => vec![*a, *b],
            Stroke::Polyline(p) if p.len() == 1 => vec![p[0], p[0]],
            Stroke::Polyline(p) => p.clone(),
            Stroke::Circle { center, radius } => arc_points(*center, *radius, 0.0, TAU),
            Stroke::Arc {
                center,
                radius,
                start,
                end,
            } => arc_points(*center, *radius, *start, *end),
            Stroke::Quadratic(p0, p1, p2) => {
                let n = curve_steps(p0.dist(*p1) + p1.dist(*p2));
                (0..=n)
                    .map(|i| {
                        let t = i as f32 / n as f32;
                        let a = p0.lerp(*p1, t);
                        let b = p1.lerp(*p2, t);
                        a.lerp(b, t)
                    })
                    .collect()
            }
            Stroke::Cubic(p0, p1, p2, p3) => {
                let n = curve_steps(p0.dist(*p1) + p1.dist(*p2) + p2.dist(*p3));
                (0..=n)
                    .map(|i| {
                        let t = i as f32 / n as f32;
                        let (a, b, c) = (p0.lerp(*p1, t), p1.lerp(*p2, t), p2.lerp(*p3, t));
                        let (d, e) = (a.lerp(b, t), b.lerp(c, t));
                        d.lerp(e, t)
                    })
                    .collect()
            }
        };
        points.windows(2).map(|w| [w[0], w[1]]).collect()
    }
}

/// Segment count for a Bézier curve whose control polygon has length `len`.
fn curve_steps(len: f32) -> usize {
    ((len / 0.003).ceil() as usize).clamp(8, 1024)
}

fn arc_points(center: Point, radius: f32, start: f32, end: f32) -> Vec<Point> {
    let radius = radius.abs();
    let sweep = end - start;
    // Sagitta r (1 - cos(step / 2)) ~ r step^2 / 8 <= TOLERANCE.
    let max_step = if radius > 0.0 {
        (8.0 * TOLERANCE / radius).sqrt()
    } else {
        TAU
    };
    let n = ((sweep.abs() / max_step).ceil() as usize).clamp(1, 4096);
    (0..=n)
        .map(|i| {
            let a = start + sweep * i as f32 / n as f32;
            Point::new(center.x + radius * a.cos(), center.y + radius * a.sin())
        })
        .collect()
}
