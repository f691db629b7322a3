//! Line charts written as PNG files (plotters into an RGB buffer): labelled axes, ticks at
//! round values (whole numbers on step axes), a legend in the emptiest corner, and lines
//! broken wherever a series has a gap.

use super::output::write_png;
use anyhow::Result;
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

/// One named line of a chart.
pub struct Series {
    /// Legend label.
    pub name: String,
    /// Points (x, y); a non-finite point (NaN) breaks the line there.
    pub points: Vec<(f64, f64)>,
}

/// Titles and axes of a chart.
pub struct Chart {
    /// Caption above the plot.
    pub title: String,
    /// X axis description, with its unit.
    pub x_label: String,
    /// Y axis description, with its unit.
    pub y_label: String,
    /// Logarithmic y axis (non-positive values break the line).
    pub log_y: bool,
    /// X values are counts (steps): ticks on whole numbers only.
    pub integer_x: bool,
    /// Draw the first series wider, so that a close fit drawn on top leaves it visible.
    pub wide_first: bool,
}

const WIDTH: u32 = 900;
const HEIGHT: u32 = 560;
const MAX_TICKS: usize = 10;
const COLORS: [RGBColor; 4] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
];

/// Registers a system TrueType font for labels once; false when none is found, in which
/// case charts are drawn without text.
pub fn fonts_available() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| {
        const CANDIDATES: [&str; 4] = [
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/TTF/DejaVuSans.ttf",
            "/usr/share/fonts/dejavu/DejaVuSans.ttf",
            "/System/Library/Fonts/Supplemental/Arial.ttf",
        ];
        for path in CANDIDATES {
            if let Ok(bytes) = std::fs::read(path) {
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return true;
                }
            }
        }
        false
    })
}

/// Draws the series as lines and writes a PNG.
pub fn line_chart(path: &Path, chart: &Chart, series: &[Series]) -> Result<()> {
    let transform = |y: f64| {
        if !chart.log_y {
            y
        } else if y > 0.0 {
            y.log10()
        } else {
            f64::NAN
        }
    };
    let lines: Vec<Vec<(f64, f64)>> = series
        .iter()
        .map(|s| s.points.iter().map(|&(x, y)| (x, transform(y))).collect())
        .collect();
    let (x_range, y_range) = ranges(&lines, !chart.log_y);
    let x_ticks = nice_ticks(x_range.start, x_range.end, chart.integer_x);
    let y_ticks = if chart.log_y {
        log_ticks(y_range.start, y_range.end)
    } else {
        nice_ticks(y_range.start, y_range.end, false)
    };
    let corner = emptiest_corner(&lines, &x_range, &y_range, series.len());
    let mut buffer = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buffer, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let text = fonts_available();
        let mut builder = ChartBuilder::on(&root);
        builder.margin(20);
        if text {
            builder
                .caption(&chart.title, ("sans-serif", 24))
                .x_label_area_size(45)
                .y_label_area_size(75);
        }
        let mut ctx = builder
            .build_cartesian_2d(
                Ticked {
                    range: x_range.clone(),
                    ticks: x_ticks,
                },
                Ticked {
                    range: y_range.clone(),
                    ticks: y_ticks,
                },
            )
            .map_err(draw_err)?;
        let (log, integer) = (chart.log_y, chart.integer_x);
        let x_format = move |x: &f64| tick_label(*x, integer);
        let y_format = move |y: &f64| {
            if log {
                short_number(10f64.powf(*y))
            } else {
                tick_label(*y, false)
            }
        };
        let y_desc = if log {
            format!("{}, log scale", chart.y_label)
        } else {
            chart.y_label.clone()
        };
        let mut mesh = ctx.configure_mesh();
        if text {
            mesh.x_desc(&chart.x_label)
                .y_desc(y_desc)
                .x_label_formatter(&x_format)
                .y_label_formatter(&y_format)
                .axis_desc_style(("sans-serif", 16))
                .label_style(("sans-serif", 14));
        } else {
            mesh.disable_x_axis().disable_y_axis();
        }
        mesh.draw().map_err(draw_err)?;
        for (i, (line, s)) in lines.iter().zip(series).enumerate() {
            let color = COLORS[i % COLORS.len()];
            // The first series (the reference) is drawn wider, so that a close fit on top
            // of it leaves it visible.
            let width = if i == 0 && chart.wide_first { 5 } else { 2 };
            let mut labelled = false;
            for segment in segments(line) {
                let drawn = ctx
                    .draw_series(LineSeries::new(segment, color.stroke_width(width)))
                    .map_err(draw_err)?;
                if text && !labelled {
                    labelled = true;
                    drawn
                        .label(s.name.clone())
                        .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color));
                }
            }
        }
        if text {
            ctx.configure_series_labels()
                .position(corner)
                .label_font(("sans-serif", 16))
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK)
                .draw()
                .map_err(draw_err)?;
        }
        root.present().map_err(draw_err)?;
    }
    write_png(path, &buffer, WIDTH, HEIGHT, 3)
}

/// A linear f64 axis with ticks chosen here (plotters' own choice can fall between whole
/// numbers on step axes).
struct Ticked {
    range: std::ops::Range<f64>,
    ticks: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let t = (value - self.range.start) / span;
        let pixels = f64::from(limit.1 - limit.0);
        if t.is_finite() {
            limit.0 + (pixels * t + 1e-3).floor() as i32
        } else {
            limit.1
        }
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.range.clone()
    }
}

fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("cannot draw chart: {e:?}")
}

/// The runs of finite points between non-finite ones.
fn segments(line: &[(f64, f64)]) -> Vec<Vec<(f64, f64)>> {
    line.split(|(x, y)| !(x.is_finite() && y.is_finite()))
        .filter(|s| !s.is_empty())
        .map(<[_]>::to_vec)
        .collect()
}

/// Axis ranges covering every finite point; with `clip_y`, the y range is cut to the
/// 1st..99th percentile so that a singularity does not flatten the rest.
fn ranges(lines: &[Vec<(f64, f64)>], clip_y: bool) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
    let finite = lines
        .iter()
        .flatten()
        .filter(|(x, y)| x.is_finite() && y.is_finite());
    let (mut xs, mut ys): (Vec<f64>, Vec<f64>) = finite.copied().unzip();
    if xs.is_empty() {
        return (0.0..1.0, 0.0..1.0);
    }
    xs.sort_by(f64::total_cmp);
    ys.sort_by(f64::total_cmp);
    let pick = |v: &[f64], q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    let (x0, x1) = (xs[0], xs[xs.len() - 1]);
    let (y0, y1) = if clip_y && ys.len() > 200 {
        (pick(&ys, 0.01), pick(&ys, 0.99))
    } else {
        (ys[0], ys[ys.len() - 1])
    };
    let pad = ((y1 - y0) * 0.05).max(1e-9 * y0.abs().max(1.0));
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    (x0..x1, (y0 - pad)..(y1 + pad))
}

/// Ticks at multiples of 1, 2 or 5 times a power of ten, at most [`MAX_TICKS`] of them;
/// whole numbers only with `integer`.
fn nice_ticks(lo: f64, hi: f64, integer: bool) -> Vec<f64> {
    let span = (hi - lo).abs().max(f64::MIN_POSITIVE);
    let raw = span / MAX_TICKS as f64;
    let power = 10f64.powf(raw.log10().floor());
    let mut step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * power);
    if integer {
        step = step.max(1.0).round();
    }
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Ticks of a log10 axis: 1, 2 and 5 times each power of ten in range (only the powers when
/// that makes too many), or round values of the exponent when the range spans less than
/// three of them.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut all = Vec::new();
    let mut decades = Vec::new();
    for k in lo.floor() as i64..=hi.ceil() as i64 {
        for m in [1.0f64, 2.0, 5.0] {
            let t = k as f64 + m.log10();
            if (lo..=hi).contains(&t) {
                all.push(t);
                if m == 1.0 {
                    decades.push(t);
                }
            }
        }
    }
    if all.len() <= MAX_TICKS && all.len() >= 3 {
        all
    } else if all.len() > MAX_TICKS {
        let thin = decades.len().div_ceil(MAX_TICKS).max(1);
        decades.into_iter().step_by(thin).collect()
    } else {
        nice_ticks(lo, hi, false)
    }
}

/// A tick label: whole numbers with thousands separators on count axes, otherwise the
/// shortest clear form.
fn tick_label(v: f64, integer: bool) -> String {
    if integer {
        let n = v.round() as i64;
        let digits = n.abs().to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        if n < 0 { format!("-{out}") } else { out }
    } else {
        short_number(v)
    }
}

/// Up to 3 significant digits; exponent form for very small or large magnitudes.
fn short_number(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-3..1e5).contains(&a) {
        let text = format!("{v:.1e}");
        return text.replace(".0e", "e");
    }
    let decimals = (2 - a.log10().floor() as i32).max(0) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// The corner of the plot where the legend covers the fewest points.
fn emptiest_corner(
    lines: &[Vec<(f64, f64)>],
    x: &std::ops::Range<f64>,
    y: &std::ops::Range<f64>,
    entries: usize,
) -> SeriesLabelPosition {
    let (w, h) = (x.end - x.start, y.end - y.start);
    let box_w = 0.3;
    let box_h = 0.08 + 0.07 * entries as f64;
    let corners = [
        (SeriesLabelPosition::UpperRight, 1.0 - box_w, 1.0 - box_h),
        (SeriesLabelPosition::UpperLeft, 0.0, 1.0 - box_h),
        (SeriesLabelPosition::LowerRight, 1.0 - box_w, 0.0),
        (SeriesLabelPosition::LowerLeft, 0.0, 0.0),
    ];
    let covered = |(u0, v0): (f64, f64)| {
        lines
            .iter()
            .flatten()
            .filter(|(px, py)| {
                let (u, v) = ((px - x.start) / w, (py - y.start) / h);
                u >= u0 && u <= u0 + box_w && v >= v0 && v <= v0 + box_h
            })
            .count()
    };
    corners
        .into_iter()
        .min_by_key(|(_, u0, v0)| covered((*u0, *v0)))
        .map_or(SeriesLabelPosition::UpperRight, |c| c.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_ticks_are_whole_numbers() {
        for (lo, hi) in [(0.0, 3.0), (1.0, 7.0), (0.0, 300.0), (100.0, 4000.0)] {
            let t = nice_ticks(lo, hi, true);
            assert!(!t.is_empty() && t.len() <= MAX_TICKS, "{lo}..{hi}: {t:?}");
            assert!(
                t.iter().all(|v| v.fract() == 0.0 && *v >= lo && *v <= hi),
                "{t:?}"
            );
        }
        assert_eq!(
            nice_ticks(0.0, 300.0, true),
            vec![0.0, 50.0, 100.0, 150.0, 200.0, 250.0, 300.0]
        );
    }

    #[test]
    fn log_ticks_fall_on_round_values() {
        // 1e-4 .. 1: decades with 2 and 5 between would be too many: decades only.
        let t = log_ticks(-4.0, 0.0);
        assert_eq!(t, vec![-4.0, -3.0, -2.0, -1.0, 0.0]);
        // Within one decade: 0.02 and 0.05 and 0.1 are not enough; round exponents instead.
        let t = log_ticks(0.02f64.log10(), 0.09f64.log10());
        assert!(t.len() >= 2, "{t:?}");
    }

    #[test]
    fn labels_are_short() {
        assert_eq!(tick_label(12_500.0, true), "12,500");
        assert_eq!(short_number(0.0312), "0.0312");
        assert_eq!(short_number(2.0), "2");
        assert_eq!(short_number(1e-5), "1e-5");
        assert_eq!(short_number(123.456), "123");
    }

    #[test]
    fn gaps_break_lines() {
        let line = [
            (0.0, 1.0),
            (1.0, 2.0),
            (2.0, f64::NAN),
            (3.0, 1.0),
            (4.0, 0.0),
        ];
        let s = segments(&line);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].len(), 2);
        assert_eq!(s[1].len(), 2);
    }

    #[test]
    fn legends_avoid_the_data() {
        // A curve falling from the upper left: the upper right corner is empty.
        let line: Vec<(f64, f64)> = (0..100)
            .map(|i| (i as f64, 1.0 / (1.0 + i as f64)))
            .collect();
        let (x, y) = ranges(std::slice::from_ref(&line), false);
        let c = emptiest_corner(&[line], &x, &y, 1);
        assert!(matches!(c, SeriesLabelPosition::UpperRight), "{c:?}");
    }
}
