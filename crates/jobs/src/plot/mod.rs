//! Charts of a run, written as PNG files (plotters into an RGB buffer): line charts
//! ([`line_chart`], the loss curves of `loss.png`) with labelled axes, ticks at round values
//! (whole numbers on step axes), a legend in the emptiest corner and lines broken wherever a
//! series has a gap; and pictures side by side under their labels
//! ([`comparison::write_comparison`]). Labels need a system TrueType font (DejaVu Sans or
//! Arial); without one the charts are drawn without text.

mod axis;
pub mod comparison;

use crate::{Error, Result};
use axis::{Ticked, log_ticks, nice_ticks, short_number, tick_label};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;
use train::history::Row;
use train::monitor::LossUnits;

pub use comparison::write_comparison;

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

/// The loss chart of a run, in its folder.
pub const LOSS_FILE: &str = "loss.png";

/// Draws `loss.png` from the rows of `history.csv`: training and validation loss per step.
pub fn draw_loss(dir: &Path, rows: &[Row], units: &LossUnits) -> Result<()> {
    let points = |loss: fn(&Row) -> Option<f64>| -> Vec<(f64, f64)> {
        rows.iter()
            .filter_map(|r| loss(r).map(|l| (r.step as f64, l)))
            .collect()
    };
    let mut series = vec![Series {
        name: "training".into(),
        points: points(|r| r.train_loss),
    }];
    let val = points(|r| r.val_loss);
    if !val.is_empty() {
        series.push(Series {
            name: "validation".into(),
            points: val,
        });
    }
    let chart = Chart {
        title: "Loss".into(),
        x_label: "step".into(),
        y_label: units.label.clone(),
        log_y: true,
        integer_x: true,
        wide_first: false,
    };
    line_chart(&dir.join(LOSS_FILE), &chart, &series)
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
    let mut buffer = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buffer, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        draw_lines(&root, chart, series, &lines)?;
        root.present().map_err(draw_err)?;
    }
    write_png(path, &buffer, WIDTH, HEIGHT, 3)
}

/// Draws the axes, the (transformed) lines of `series` and the legend on `root`.
fn draw_lines(
    root: &DrawingArea<BitMapBackend<'_>, Shift>,
    chart: &Chart,
    series: &[Series],
    lines: &[Vec<(f64, f64)>],
) -> Result<()> {
    let (x_range, y_range) = ranges(lines, !chart.log_y);
    let corner = emptiest_corner(lines, &x_range, &y_range, series.len());
    let x_ticks = nice_ticks(x_range.start, x_range.end, chart.integer_x);
    let y_ticks = if chart.log_y {
        log_ticks(y_range.start, y_range.end)
    } else {
        nice_ticks(y_range.start, y_range.end, false)
    };
    let text = fonts_available();
    let mut builder = ChartBuilder::on(root);
    builder.margin(20);
    if text {
        builder
            .caption(&chart.title, ("sans-serif", 24))
            .x_label_area_size(45)
            .y_label_area_size(75);
    }
    let x_axis = Ticked {
        range: x_range,
        ticks: x_ticks,
    };
    let y_axis = Ticked {
        range: y_range,
        ticks: y_ticks,
    };
    let mut ctx = builder
        .build_cartesian_2d(x_axis, y_axis)
        .map_err(draw_err)?;
    draw_mesh(&mut ctx, chart, text)?;
    for (i, (line, s)) in lines.iter().zip(series).enumerate() {
        let color = COLORS[i % COLORS.len()];
        // The first series (the reference) is drawn wider, so that a close fit on top of it
        // leaves it visible.
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
    Ok(())
}

/// The chart's frame: axis descriptions and tick labels (none without a font).
fn draw_mesh(
    ctx: &mut ChartContext<'_, BitMapBackend<'_>, Cartesian2d<Ticked, Ticked>>,
    chart: &Chart,
    text: bool,
) -> Result<()> {
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
    mesh.draw().map_err(draw_err)
}

fn draw_err<E: std::fmt::Debug>(e: E) -> Error {
    Error::Draw(format!("cannot draw chart: {e:?}"))
}

/// Encodes 8-bit pixels (1 channel: gray, 3: RGB) as a PNG in memory and writes it
/// atomically.
fn write_png(path: &Path, pixels: &[u8], width: u32, height: u32, channels: u8) -> Result<()> {
    let write = |source| train::Error::Write {
        path: path.to_path_buf(),
        source: Box::new(source),
    };
    let bytes = io::image::encode_png(pixels, width as usize, height as usize, channels.into())
        .map_err(write)?;
    Ok(io::write_file(path, &bytes).map_err(write)?)
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
