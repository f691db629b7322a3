//! `iron-learn approx`: fit a network to a function of x typed by the user.

use super::{matrix, seconds};
use crate::cli::{ApproxArgs, ScheduleArg};
use crate::device::Job;
use crate::expr::{Function, parse_range};
use crate::memory_budget::Estimate;
use crate::report::plot::{Series, line_chart};
use crate::report::{metrics, run_dir};
use crate::session::{Defaults, Run};
use anyhow::{Result, bail};
use io::Standardizer;
use nn::{Activation, Data, Loss, Mlp, TrainLength};
use serde_json::{Map, json};
use tensor_core::Backend;

/// Fits a typed function.
pub struct Approx(pub ApproxArgs);

/// Samples of the function: inputs and values, with the count of points left out.
struct Samples {
    x: Vec<f64>,
    y: Vec<f64>,
    undefined: usize,
    /// Points where |f(x)| is beyond the largest 32-bit float (or infinite).
    overflow: usize,
    /// The first such x.
    first_overflow: Option<f64>,
    outliers: usize,
}

fn median(sorted: &[f64]) -> f64 {
    sorted[sorted.len() / 2]
}

/// Evaluates `f` on `n` evenly spaced points of [a, b], leaving out points where it is
/// undefined and (for regression) values far outside the bulk, as near a pole.
fn sample(f: &Function, a: f64, b: f64, n: usize, keep_outliers: bool) -> Result<Samples> {
    let mut s = Samples {
        x: Vec::new(),
        y: Vec::new(),
        undefined: 0,
        overflow: 0,
        first_overflow: None,
        outliers: 0,
    };
    // The count comes from the user: reserve fallibly.
    let reserve = |v: &mut Vec<f64>| {
        v.try_reserve_exact(n)
            .map_err(|_| anyhow::anyhow!("cannot allocate {n} samples; use fewer --samples"))
    };
    reserve(&mut s.x)?;
    reserve(&mut s.y)?;
    for i in 0..n {
        let x = a + (b - a) * i as f64 / (n - 1) as f64;
        let y = f.eval(x);
        if y.is_nan() {
            s.undefined += 1;
        } else if y.abs() > f64::from(f32::MAX) {
            s.overflow += 1;
            s.first_overflow.get_or_insert(x);
        } else {
            s.x.push(x);
            s.y.push(y);
        }
    }
    if keep_outliers || s.y.len() < 8 {
        return Ok(s);
    }
    let mut sorted = s.y.clone();
    sorted.sort_by(f64::total_cmp);
    let (q1, q3) = (sorted[sorted.len() / 4], sorted[3 * sorted.len() / 4]);
    let (mid, spread) = (median(&sorted), (q3 - q1).max(1e-9 * median(&sorted).abs()));
    let keep: Vec<bool> =
        s.y.iter()
            .map(|y| (y - mid).abs() <= 10.0 * spread.max(1e-12))
            .collect();
    s.outliers = keep.iter().filter(|k| !**k).count();
    let mut it = keep.iter();
    s.x.retain(|_| *it.next().unwrap_or(&true));
    let mut it = keep.iter();
    s.y.retain(|_| *it.next().unwrap_or(&true));
    Ok(s)
}

impl Job for Approx {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        let f = Function::parse(&args.function)?;
        let (a, b) = parse_range(&args.range)?;
        if args.samples < 10 {
            bail!("--samples must be at least 10");
        }
        let architecture = Mlp::<B>::builder()
            .input(1)
            .hidden(&args.hidden, Activation::Tanh)
            .output(1, Activation::Identity)
            .config(args.train.seed)?;
        // Every sample is in every (full-batch) step: refuse what cannot fit before sampling.
        Estimate::training(&architecture, args.samples, args.samples, None, 0).check("approx")?;
        let s = sample(&f, a, b, args.samples, args.classify)?;
        // A few infinite points are poles (1/x at 0); more are a function too large for
        // 32-bit floats, which no network here can fit.
        if s.overflow > (args.samples / 100).max(2) {
            bail!(
                "{:?} overflows 32-bit floats (|f(x)| above {:.1e}) at {} of {} points in [{a}, {b}], from x = {:.4}; narrow --range or scale the function down",
                f.text(),
                f32::MAX,
                s.overflow,
                args.samples,
                s.first_overflow.unwrap_or(a)
            );
        }
        if s.x.len() < 10 {
            bail!(
                "{:?} is defined at only {} of {} points in [{a}, {b}]",
                f.text(),
                s.x.len(),
                args.samples
            );
        }
        if !args.classify && s.y.iter().all(|&y| y == s.y[0]) {
            bail!(
                "{:?} is constant on [{a}, {b}] (every value is {}); there is nothing to fit",
                f.text(),
                s.y[0]
            );
        }
        if s.undefined + s.overflow + s.outliers > 0 {
            eprintln!(
                "note: left out {} points where the function is undefined, {} where it is infinite (poles) and {} near-pole values far outside the rest",
                s.undefined, s.overflow, s.outliers
            );
        }
        let dir = run_dir::prepare(&args.train, "approx")?;
        let scale = |x: f64| (2.0 * (x - a) / (b - a) - 1.0) as f32;
        let xs: Vec<f32> = s.x.iter().map(|&x| scale(x)).collect();
        let raw: Vec<f32> = s.y.iter().map(|&y| y as f32).collect();
        let stats = Standardizer::fit(&raw, 1)?;
        let ys = if args.classify {
            raw.iter()
                .map(|&y| if y > 0.0 { 1.0 } else { 0.0 })
                .collect()
        } else {
            stats.transform(&raw)?
        };
        let n = xs.len();
        let xt = matrix(backend, &xs, n, 1)?;
        let yt = matrix(backend, &ys, n, 1)?;
        let run = Run {
            job: "approx",
            dir: dir.clone(),
            args: &args.train,
            defaults: Defaults {
                lr: 3e-3,
                length: TrainLength::Epochs(3000),
                batch: None,
                schedule: ScheduleArg::Cosine,
            },
            architecture,
            loss: if args.classify {
                Loss::BceWithLogits
            } else {
                Loss::Mse
            },
            extra: json!({ "function": f.text(), "range": [a, b], "targets": stats, "classify": args.classify }),
            early_stopping: None,
            pool: 1,
            output_bias: None,
        };
        let out = run.train(backend, Data::new(&xt, &yt), None)?;
        let pred = out.model.predict(&xt)?.to_vec()?;
        let mut m = Map::new();
        let (fit, truth): (Vec<f32>, Vec<f32>) = if args.classify {
            let p: Vec<f32> = pred
                .iter()
                .map(|&z| if z > 0.0 { 1.0 } else { 0.0 })
                .collect();
            let c = metrics::binary_classification(&p, &ys);
            println!(
                "sign of {} on [{a}, {b}]: accuracy {:.4} (majority class {:.4})",
                f.text(),
                c.accuracy,
                c.baseline_accuracy
            );
            m.insert("accuracy".into(), json!(c.accuracy));
            m.insert("baseline_accuracy".into(), json!(c.baseline_accuracy));
            (
                pred.iter().map(|&z| tensor_core::sigmoid(z)).collect(),
                ys.clone(),
            )
        } else {
            let p = stats.inverse_transform(&pred)?;
            let r = metrics::regression(&p, &raw);
            let max_err = p
                .iter()
                .zip(&raw)
                .map(|(p, t)| (p - t).abs())
                .fold(0f32, f32::max);
            println!(
                "{} on [{a}, {b}]: MSE {:.3e}, MAE {:.3e}, max error {max_err:.3e}, R^2 {:.5}",
                f.text(),
                r.mse,
                r.mae,
                r.r2
            );
            m.insert("mse".into(), json!(r.mse));
            m.insert("mae".into(), json!(r.mae));
            m.insert("max_error".into(), json!(max_err));
            m.insert("r2".into(), json!(r.r2));
            (p, raw.clone())
        };
        let points = |v: &[f32]| s.x.iter().zip(v).map(|(&x, &y)| (x, y as f64)).collect();
        let series = [
            Series {
                name: "function".into(),
                points: points(&truth),
            },
            Series {
                name: "network".into(),
                points: points(&fit),
            },
        ];
        line_chart(&dir.join("fit.png"), f.text(), "x", "y", &series, false)?;
        let r = &out.report;
        println!(
            "{} steps in {}; results in {}",
            r.steps,
            seconds(r.seconds),
            dir.display()
        );
        m.insert("points_used".into(), json!(n));
        m.insert(
            "points_left_out".into(),
            json!(s.undefined + s.overflow + s.outliers),
        );
        m.insert("final_loss".into(), json!(r.final_train_loss));
        m.insert("steps".into(), json!(r.steps));
        m.insert("seconds".into(), json!(r.seconds));
        m.insert("parameters".into(), json!(out.model.num_params()));
        run_dir::write_metrics(&dir, &m)
    }
}
