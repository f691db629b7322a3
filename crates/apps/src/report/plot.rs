//! Line charts written as PNG files (plotters into an RGB buffer, saved with `image`).

use anyhow::{Context, Result};
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

/// One named line of a chart.
pub struct Series {
    /// Legend label.
    pub name: String,
    /// Points (x, y); non-finite points are skipped.
    pub points: Vec<(f64, f64)>,
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
fn fonts_available() -> bool {
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

/// Draws the series as lines and writes a PNG. With `log_y`, y is plotted as log10(y)
/// (non-positive values skipped).
pub fn line_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    log_y: bool,
) -> Result<()> {
    let transform = |y: f64| if log_y { y.log10() } else { y };
    let lines: Vec<Vec<(f64, f64)>> = series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .map(|&(x, y)| (x, transform(y)))
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .collect()
        })
        .collect();
    let (x_range, y_range) = ranges(&lines);
    let mut buffer = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buffer, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let text = fonts_available();
        let mut builder = ChartBuilder::on(&root);
        builder.margin(20);
        if text {
            builder
                .caption(title, ("sans-serif", 24))
                .x_label_area_size(40)
                .y_label_area_size(60);
        }
        let mut chart = builder
            .build_cartesian_2d(x_range, y_range)
            .map_err(draw_err)?;
        let mut mesh = chart.configure_mesh();
        if text {
            let y_desc = if log_y {
                format!("log10({y_label})")
            } else {
                y_label.to_string()
            };
            mesh.x_desc(x_label).y_desc(y_desc);
        } else {
            mesh.disable_x_axis().disable_y_axis();
        }
        mesh.draw().map_err(draw_err)?;
        for (i, (line, s)) in lines.iter().zip(series).enumerate() {
            let color = COLORS[i % COLORS.len()];
            let drawn = chart
                .draw_series(LineSeries::new(line.iter().copied(), color.stroke_width(2)))
                .map_err(draw_err)?;
            if text {
                drawn
                    .label(s.name.clone())
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color));
            }
        }
        if text {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(draw_err)?;
        }
        root.present().map_err(draw_err)?;
    }
    // Encoded in memory, then written atomically: a full disk is an error, never a torn PNG.
    let mut png = Vec::new();
    image::ImageEncoder::write_image(
        image::codecs::png::PngEncoder::new(&mut png),
        &buffer,
        WIDTH,
        HEIGHT,
        image::ExtendedColorType::Rgb8,
    )
    .with_context(|| format!("cannot encode {}", path.display()))?;
    super::atomic_write::write_bytes(path, &png)
}

fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("cannot draw chart: {e:?}")
}

/// Axis ranges covering every point, the y range cut to the 1st..99th percentile so that a
/// singularity does not flatten the rest.
fn ranges(lines: &[Vec<(f64, f64)>]) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
    let mut xs: Vec<f64> = lines.iter().flatten().map(|p| p.0).collect();
    let mut ys: Vec<f64> = lines.iter().flatten().map(|p| p.1).collect();
    if xs.is_empty() {
        return (0.0..1.0, 0.0..1.0);
    }
    xs.sort_by(f64::total_cmp);
    ys.sort_by(f64::total_cmp);
    let pick = |v: &[f64], q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    let (x0, x1) = (xs[0], xs[xs.len() - 1]);
    let (y0, y1) = if ys.len() > 200 {
        (pick(&ys, 0.01), pick(&ys, 0.99))
    } else {
        (ys[0], ys[ys.len() - 1])
    };
    let pad = ((y1 - y0) * 0.05).max(1e-9);
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    (x0..x1, (y0 - pad)..(y1 + pad))
}
