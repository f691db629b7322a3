//! What a function fit draws: `points.csv` (every sample point, its target and the
//! network's value) and `fit.png`.

use super::options::ApproxOptions;
use crate::Result;
use crate::plot::{Chart, Series, line_chart};
use io::Standardizer;
use io::expr::Function;
use nn::Mlp;
use std::path::{Path, PathBuf};
use tensor_core::{Backend, Tensor};
use train::history::number;
use train::record::write_file;

/// The sample table of a fit.
pub const POINTS_FILE: &str = "points.csv";
/// The chart of a fit.
pub const FIT_CHART_FILE: &str = "fit.png";

/// A fitted function with what is needed to draw it: the samples kept, their targets, and
/// the standardisations of inputs and values.
pub(super) struct FittedCurve<'a> {
    pub options: &'a ApproxOptions,
    pub f: &'a Function,
    /// The sample index of each kept point.
    pub kept: &'a [usize],
    /// The target of each kept point (the value, or its sign class).
    pub truth: &'a [f32],
    pub inputs: &'a Standardizer,
    pub stats: &'a Standardizer,
}

/// The network along every sample point.
struct Points {
    x: Vec<f64>,
    target: Vec<f64>,
    fit: Vec<f32>,
}

impl FittedCurve<'_> {
    /// Every sample point, in order: its x, the target where the function was kept (NaN
    /// elsewhere) and the network's value (a probability when classifying).
    fn points<B: Backend>(&self, backend: &B, model: &Mlp<B>) -> Result<Points> {
        let ((a, b), n) = (self.options.range, self.options.samples);
        let x: Vec<f64> = (0..n)
            .map(|i| a + (b - a) * i as f64 / (n - 1) as f64)
            .collect();
        let scaled = self
            .inputs
            .transform(&x.iter().map(|&x| x as f32).collect::<Vec<_>>())?;
        let grid = Tensor::from_slice(backend, &scaled, [x.len(), 1])?;
        let pred = model.predict(&grid)?.to_vec()?;
        let fit: Vec<f32> = if self.options.classify {
            pred.iter().map(|&z| tensor_core::sigmoid(z)).collect()
        } else {
            self.stats.inverse_transform(&pred)?
        };
        let mut target = vec![f64::NAN; x.len()];
        for (&i, &t) in self.kept.iter().zip(self.truth) {
            target[i] = f64::from(t);
        }
        Ok(Points { x, target, fit })
    }

    /// Writes `points.csv` and draws `fit.png`; lines break where points were left out (a
    /// pole). Returns the two files.
    pub fn write<B: Backend>(
        &self,
        backend: &B,
        model: &Mlp<B>,
        dir: &Path,
    ) -> Result<Vec<PathBuf>> {
        let p = self.points(backend, model)?;
        let csv_path = dir.join(POINTS_FILE);
        write_file(&csv_path, points_csv(&p).as_bytes())?;
        let chart_path = dir.join(FIT_CHART_FILE);
        line_chart(
            &chart_path,
            &self.chart(),
            &series(&p, self.options.classify),
        )?;
        Ok(vec![csv_path, chart_path])
    }

    /// The chart's title and axes.
    fn chart(&self) -> Chart {
        Chart {
            title: format!("f(x) = {}", self.f.text()),
            x_label: "x".into(),
            y_label: if self.options.classify {
                "probability that f(x) > 0".into()
            } else {
                "f(x)".into()
            },
            log_y: false,
            integer_x: false,
            wide_first: true,
        }
    }
}

/// `x,target,prediction` rows; the target is empty where the point was left out.
fn points_csv(p: &Points) -> String {
    let mut csv = String::from("x,target,prediction\n");
    for ((x, t), f) in p.x.iter().zip(&p.target).zip(&p.fit) {
        let t = if t.is_finite() {
            number(*t)
        } else {
            String::new()
        };
        csv += &format!("{},{t},{}\n", number(*x), number(f64::from(*f)));
    }
    csv
}

/// The function's line and the network's, both broken where a point was left out.
fn series(p: &Points, classify: bool) -> [Series; 2] {
    let line = |v: &dyn Fn(usize) -> f64| -> Vec<(f64, f64)> {
        p.x.iter()
            .enumerate()
            .map(|(i, &x)| {
                let y = if p.target[i].is_finite() {
                    v(i)
                } else {
                    f64::NAN
                };
                (x, y)
            })
            .collect()
    };
    [
        Series {
            name: if classify { "f(x) > 0" } else { "f(x)" }.into(),
            points: line(&|i| p.target[i]),
        },
        Series {
            name: "network".into(),
            points: line(&|i| f64::from(p.fit[i])),
        },
    ]
}
